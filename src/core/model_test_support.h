// What the tests of the disk model's users share: a device whose times are easy to work out.
#pragma once

#include "core/profile.h"

namespace diskcond::testing {

// An SSD with no access time, one queue slot and 1 byte per ns both ways (10^9 bytes per
// second), so a command of n bytes occupies the device for exactly n ns.
inline Profile one_byte_per_ns() {
  Profile p;
  p.name = "1 B/ns";
  p.type = DiskType::kSSD;
  p.access_time_ns = 0;
  p.read_bytes_per_sec = 1'000'000'000;
  p.write_bytes_per_sec = 1'000'000'000;
  p.queue_depth = 1;
  return p;
}

}  // namespace diskcond::testing
