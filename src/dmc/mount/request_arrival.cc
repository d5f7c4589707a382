#include "dmc/mount/request_arrival.h"

namespace diskcond::mount {
namespace {

thread_local Arrival noted;

}  // namespace

void note_request_read(int64_t read_ns, int64_t sent_ns, uint64_t unique) {
  if (read_ns <= 0) {
    noted = Arrival{};
  } else if (sent_ns > 0 && sent_ns <= read_ns) {
    noted = Arrival{sent_ns, true, unique};
  } else {
    noted = Arrival{read_ns, false, unique};
  }
}

Arrival take_request_read() {
  const Arrival taken = noted;
  noted = Arrival{};
  return taken;
}

}  // namespace diskcond::mount
