#include "core/profile.h"

#include <gtest/gtest.h>

#include "core/units.h"

namespace diskcond {
namespace {

TEST(Profile, EightBuiltinsWithMacOsNamesInOrder) {
  const char* names[] = {"Faulty 5400 HDD", "5400 HDD",     "7200 HDD",   "Slow SSD",
                         "SATA II SSD",     "SATA III SSD", "PCIe 2 SSD", "PCIe 3 SSD"};
  auto profiles = builtin_profiles();
  ASSERT_EQ(profiles.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(profiles[i].name, names[i]);
    EXPECT_TRUE(validate(profiles[i]).ok()) << names[i];
    EXPECT_EQ(profiles[i].type, i < 3 ? DiskType::kHDD : DiskType::kSSD);
  }
}

TEST(Profile, PublishedValuesAreExact) {
  auto p = builtin_profiles();
  EXPECT_EQ(p[0], (Profile{"Faulty 5400 HDD", DiskType::kHDD, 52222 * kNsPerUs, 50 * kMiB,
                           50 * kMiB, 16, 16777216, 16777216, 128, 128}));
  EXPECT_EQ(p[3], (Profile{"Slow SSD", DiskType::kSSD, 100 * kNsPerUs, 250 * kMiB, 125 * kMiB, 32,
                           33554432, 33554432, 64, 64}));
  EXPECT_EQ(p[7], (Profile{"PCIe 3 SSD", DiskType::kSSD, 3 * kNsPerUs, 3072 * kMiB, 2560 * kMiB,
                           256, 67108864, 67108864, 256, 256}));
}

// The chosen values must sit between their published neighbours: each profile is at least as
// fast as the one before it in access time and read throughput.
TEST(Profile, ChosenValuesAreOrderedByHardwareClass) {
  auto p = builtin_profiles();
  for (size_t i = 1; i < p.size(); ++i) {
    EXPECT_LT(p[i].access_time_ns, p[i - 1].access_time_ns) << p[i].name;
    EXPECT_GE(p[i].read_bytes_per_sec, p[i - 1].read_bytes_per_sec) << p[i].name;
  }
  // SATA links: II carries 300 MB/s (decimal) and III 600 MB/s: the SSDs stay below.
  EXPECT_LT(p[4].read_bytes_per_sec, 300'000'000u);
  EXPECT_LT(p[5].read_bytes_per_sec, 600'000'000u);
}

TEST(Profile, ValidateNamesTheBadField) {
  Profile p = builtin_profiles()[3];
  p.queue_depth = 0;
  auto s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("queue depth"), std::string::npos);
  p = builtin_profiles()[3];
  p.access_time_ns = -1;
  EXPECT_FALSE(validate(p).ok());
  p = builtin_profiles()[3];
  p.max_read_bytes = 100;
  EXPECT_FALSE(validate(p).ok());
  p = builtin_profiles()[3];
  p.name.clear();
  EXPECT_FALSE(validate(p).ok());
  p.name = "Lab\nDisk";
  EXPECT_NE(validate(p).error().find("control character"), std::string::npos);
}

TEST(Profile, DiskTypeParsing) {
  EXPECT_EQ(*parse_disk_type("hdd"), DiskType::kHDD);
  EXPECT_EQ(*parse_disk_type("SSD"), DiskType::kSSD);
  EXPECT_FALSE(parse_disk_type("floppy").ok());
}

}  // namespace
}  // namespace diskcond
