// libFuzzer harness: the size, time and rate parsers never crash, and what they accept is sane.
#include <cstdlib>
#include <string_view>

#include "core/units.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto s = diskcond::parse_size(text); s.ok()) {
    (void)diskcond::format_size(*s);
  }
  if (auto t = diskcond::parse_time_ns(text, diskcond::TimeUnit::kMicroseconds); t.ok()) {
    if (*t < 0) std::abort();
  }
  if (auto r = diskcond::parse_rate(text); r.ok()) {
    (void)diskcond::format_rate_mb(*r);
  }
  return 0;
}
