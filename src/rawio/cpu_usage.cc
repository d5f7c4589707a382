#include "rawio/cpu_usage.h"

#include <sys/resource.h>

namespace diskcond::rawio {

CpuTimes process_cpu_times() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) {
    return static_cast<int64_t>(tv.tv_sec) * 1'000'000'000 +
           static_cast<int64_t>(tv.tv_usec) * 1000;
  };
  return {ns(ru.ru_utime), ns(ru.ru_stime)};
}

double cpu_percent(int64_t cpu_ns, int64_t elapsed_ns) {
  if (elapsed_ns <= 0) return 0.0;
  return 100.0 * static_cast<double>(cpu_ns) / static_cast<double>(elapsed_ns);
}

}  // namespace diskcond::rawio
