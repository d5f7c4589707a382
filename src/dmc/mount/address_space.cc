#include "dmc/mount/address_space.h"

namespace diskcond::mount {
namespace {

// splitmix64 finaliser: spreads consecutive inode numbers over the whole space.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t AddressSpace::region_base(dev_t dev, ino_t ino) const {
  const uint64_t h = mix(static_cast<uint64_t>(ino) ^ mix(static_cast<uint64_t>(dev)));
  const uint64_t regions = capacity_ / kRegionAlign;
  if (regions == 0) return 0;
  return (h % regions) * kRegionAlign;
}

}  // namespace diskcond::mount
