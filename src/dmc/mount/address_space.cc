#include "dmc/mount/address_space.h"

#include "core/splitmix64.h"

namespace diskcond::mount {

uint64_t AddressSpace::region_base(dev_t dev, ino_t ino) const {
  // mix64 spreads consecutive inode numbers over the whole space.
  const uint64_t h = mix64(static_cast<uint64_t>(ino) ^ mix64(static_cast<uint64_t>(dev)));
  const uint64_t regions = capacity_ / kRegionAlign;
  if (regions == 0) return 0;
  return (h % regions) * kRegionAlign;
}

}  // namespace diskcond::mount
