#include "dmc/mount/request_arrival.h"

namespace diskcond::mount {
namespace {

thread_local int64_t noted_read_ns = 0;

}  // namespace

void note_request_read(int64_t now_ns) {
  noted_read_ns = now_ns;
}

int64_t take_request_read() {
  const int64_t ns = noted_read_ns;
  noted_read_ns = 0;
  return ns;
}

}  // namespace diskcond::mount
