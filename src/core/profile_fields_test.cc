#include "core/profile_fields.h"

#include <gtest/gtest.h>

#include <set>

namespace diskcond {
namespace {

TEST(ProfileFields, OneKeyEachAndJsonKeysAddTheirUnit) {
  std::set<std::string> keys;
  for (const ProfileField& f : profile_fields()) {
    EXPECT_TRUE(keys.insert(std::string(f.key)).second) << f.key;
    EXPECT_EQ(find_profile_field(f.key), &f);
    if (!f.old_key.empty()) {
      EXPECT_EQ(find_profile_field(f.old_key), &f);
    }
    EXPECT_EQ(json_key(f).rfind(f.key, 0), 0u) << f.key;
  }
  EXPECT_EQ(json_key(*find_profile_field("access_time")), "access_time_us");
  EXPECT_EQ(json_key(*find_profile_field("read_throughput")), "read_throughput_bytes_per_sec");
  EXPECT_EQ(json_key(*find_profile_field("queue_depth")), "io_queue_depth");
  EXPECT_EQ(json_key(*find_profile_field("max_write_bytes")), "max_write_bytes");
  EXPECT_EQ(json_key(*find_profile_field("spinup_time")), "spinup_time_ns");
  EXPECT_EQ(find_profile_field("queue_dept"), nullptr);
}

TEST(ProfileFields, DefaultsAndBuiltinsAreInRange) {
  for (DiskType type : {DiskType::kHDD, DiskType::kSSD}) {
    Profile p = profile_defaults(type);
    for (const ProfileField& f : profile_fields()) EXPECT_TRUE(check_field(f, p).ok()) << f.key;
  }
  for (const Profile& p : builtin_profiles()) {
    for (const ProfileField& f : profile_fields())
      EXPECT_TRUE(check_field(f, p).ok()) << p.name << " " << f.key;
  }
}

TEST(ProfileFields, TextInTheFieldsUnitWithErrorsNamingIt) {
  const ProfileField& access = *find_profile_field("access_time");
  EXPECT_EQ(*parse_field_text(access, "52222", "access_time"), 52222 * kNsPerUs);
  EXPECT_EQ(*parse_field_text(access, "52ms", "access_time"), 52 * kNsPerMs);
  EXPECT_EQ(parse_field_text(access, "61s", "x").error(), "x '61s' is out of range (0 to 60 s)");
  EXPECT_NE(parse_field_text(access, "abc", "x").error().find("x: invalid time 'abc'"),
            std::string::npos);
  const ProfileField& spinup = *find_profile_field("spinup_time");
  EXPECT_EQ(*parse_field_text(spinup, "8", "spinup_time"), 8 * kNsPerSec);
  const ProfileField& depth = *find_profile_field("io_queue_depth");
  EXPECT_EQ(*parse_field_text(depth, "16", "d"), 16);
  EXPECT_EQ(parse_field_text(depth, "1.5", "d").error(),
            "invalid d '1.5' (a whole number from 1 to 65536)");
  EXPECT_EQ(parse_field_text(depth, "0", "d").error(), "d '0' is out of range (1 to 65536)");
  const ProfileField& bytes = *find_profile_field("max_read_bytes");
  EXPECT_EQ(*parse_field_text(bytes, "0", "b"), 0);  // no limit
  EXPECT_EQ(*parse_field_text(bytes, "16m", "b"), static_cast<int64_t>(16 * kMiB));
  EXPECT_FALSE(parse_field_text(bytes, "100", "b").ok());
  const ProfileField& rate = *find_profile_field("read_throughput");
  EXPECT_EQ(*parse_field_text(rate, "50", "r"), static_cast<int64_t>(50 * kMiB));
  EXPECT_FALSE(parse_field_text(rate, "2TB/s", "r").ok());
}

TEST(ProfileFields, OutOfRangeNamesFieldValueAndRange) {
  Profile p = builtin_profiles()[3];
  p.access_time_ns = 61 * kNsPerSec;
  EXPECT_EQ(validate(p).error(), "access time 61000000000 ns is out of range (0 to 60 s)");
  p = builtin_profiles()[3];
  p.max_write_segments = 70000;
  EXPECT_EQ(validate(p).error(), "max write segments 70000 is out of range (0 to 65536)");
  p = builtin_profiles()[3];
  p.spinup_idle_ns = -1;
  EXPECT_EQ(validate(p).error(), "spin-up idle time -1 ns is out of range (0 or more)");
}

}  // namespace
}  // namespace diskcond
