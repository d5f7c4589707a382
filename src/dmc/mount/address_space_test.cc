#include "dmc/mount/address_space.h"

#include <gtest/gtest.h>

#include <set>

namespace diskcond::mount {
namespace {

constexpr uint64_t kCapacity = 100ull << 30;

TEST(MountAddressSpace, RegionsAreAlignedAndInside) {
  AddressSpace space(kCapacity);
  for (ino_t ino = 1; ino < 1000; ++ino) {
    uint64_t base = space.region_base(2049, ino);
    EXPECT_LT(base, kCapacity);
    EXPECT_EQ(base % AddressSpace::kRegionAlign, 0u);
  }
}

TEST(MountAddressSpace, FileIsContiguousAndStable) {
  AddressSpace space(kCapacity);
  uint64_t base = space.region_base(2049, 42);
  EXPECT_EQ(base, AddressSpace(kCapacity).region_base(2049, 42));
  EXPECT_EQ(space.address(base, 4096), space.address(base, 0) + 4096);
  EXPECT_EQ(space.address(base, 1 << 20), base + (1 << 20));
}

TEST(MountAddressSpace, DifferentInodesGetDifferentRegions) {
  AddressSpace space(kCapacity);
  std::set<uint64_t> bases;
  for (ino_t ino = 1; ino <= 200; ++ino) bases.insert(space.region_base(2049, ino));
  EXPECT_GT(bases.size(), 195u);  // collisions in 100k regions are rare
  EXPECT_NE(space.region_base(1, 5), space.region_base(2, 5));
}

TEST(MountAddressSpace, WrapsAtCapacity) {
  AddressSpace space(10 << 20);
  EXPECT_EQ(space.address(9 << 20, 2 << 20), 1u << 20);
  EXPECT_EQ(AddressSpace(512).region_base(1, 1), 0u);  // smaller than one region
}

}  // namespace
}  // namespace diskcond::mount
