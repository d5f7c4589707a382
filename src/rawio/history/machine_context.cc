#include <sys/utsname.h>

#include <ctime>

#include "rawio/history/saved_run.h"

namespace diskcond::rawio::history {

RunContext machine_context() {
  RunContext context;
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  context.when_utc = when;
  struct utsname u {};
  if (uname(&u) == 0) {
    context.host = u.nodename;
    context.kernel = std::string(u.sysname) + " " + u.release;
  }
  return context;
}

}  // namespace diskcond::rawio::history
