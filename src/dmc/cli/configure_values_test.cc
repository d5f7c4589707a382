#include "dmc/cli/configure_values.h"

#include <gtest/gtest.h>

#include "core/profile_fields.h"
#include "core/units.h"

namespace diskcond::dmc {
namespace {

Result<Profile> parse(std::vector<std::string> words) {
  return parse_configure_values(words);
}

TEST(DmcConfigureValues, PlainNumbersAreMicrosecondsAndMegabytesPerSecond) {
  auto p = parse({"HDD", "52222", "50", "40"});
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->name, "Custom");
  EXPECT_EQ(p->type, DiskType::kHDD);
  EXPECT_EQ(p->access_time_ns, 52222 * kNsPerUs);
  EXPECT_EQ(p->read_bytes_per_sec, 50 * kMiB);
  EXPECT_EQ(p->write_bytes_per_sec, 40 * kMiB);
  // Optional fields take the type's defaults.
  EXPECT_EQ(p->queue_depth, 32u);
  EXPECT_EQ(p->max_read_bytes, 16 * kMiB);
  EXPECT_EQ(p->max_write_segments, 128u);
}

TEST(DmcConfigureValues, UnitsAndAllNineFields) {
  auto p = parse({"ssd", "8ms", "1.5GB/s", "0", "64", "1m", "512k", "32", "16"});
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->type, DiskType::kSSD);
  EXPECT_EQ(p->access_time_ns, 8 * kNsPerMs);
  EXPECT_EQ(p->read_bytes_per_sec, 3 * kGiB / 2);
  EXPECT_EQ(p->write_bytes_per_sec, 0u);
  EXPECT_EQ(p->queue_depth, 64u);
  EXPECT_EQ(p->max_read_bytes, kMiB);
  EXPECT_EQ(p->max_write_bytes, 512 * kKiB);
  EXPECT_EQ(p->max_read_segments, 32u);
  EXPECT_EQ(p->max_write_segments, 16u);
}

TEST(DmcConfigureValues, PartialOptionalFieldsFromTheLeft) {
  auto p = parse({"SSD", "100", "250", "125", "8"});
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->queue_depth, 8u);
  EXPECT_EQ(p->max_read_bytes, type_defaults(DiskType::kSSD).max_read_bytes);
}

TEST(DmcConfigureValues, AllZeroMeansNoConditioning) {
  auto p = parse({"SSD", "0", "0", "0"});
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->access_time_ns, 0);
  EXPECT_EQ(p->read_bytes_per_sec, 0u);
  EXPECT_EQ(p->write_bytes_per_sec, 0u);
}

TEST(DmcConfigureValues, BadValuesNameTheFieldAndWord) {
  struct Case {
    std::vector<std::string> words;
    const char* needle;
  };
  const Case cases[] = {
      {{"tape", "1", "1", "1"}, "tape"},
      {{"SSD", "-1", "1", "1"}, "'-1'"},
      {{"SSD", "abc", "1", "1"}, "'abc'"},
      {{"SSD", "61s", "1", "1"}, "access_time '61s'"},
      {{"SSD", "1", "-5", "1"}, "'-5'"},
      {{"SSD", "1", "1", "fast"}, "'fast'"},
      {{"SSD", "1", "99999999999", "1"}, "read_throughput '99999999999'"},
      {{"SSD", "1", "1", "2TB/s"}, "write_throughput '2TB/s'"},
      {{"SSD", "1", "1", "1", "0"}, "ioqueue_depth '0'"},
      {{"SSD", "1", "1", "1", "65537"}, "ioqueue_depth '65537'"},
      {{"SSD", "1", "1", "1", "1.5"}, "ioqueue_depth '1.5'"},
      {{"SSD", "1", "1", "1", "-3"}, "ioqueue_depth '-3'"},
      {{"SSD", "1", "1", "1", "99999999999999999999999"}, "ioqueue_depth"},
      {{"SSD", "1", "1", "1", "4", "100"}, "maxreadcnt '100'"},
      {{"SSD", "1", "1", "1", "4", "1m", "2t"}, "maxwritecnt '2t'"},
      {{"SSD", "1", "1", "1", "4", "1m", "1m", "+1"}, "segreadcnt '+1'"},
      {{"SSD", "1", "1", "1", "4", "1m", "1m", "1", "70000"}, "segwritecnt '70000'"},
  };
  for (const Case& c : cases) {
    auto p = parse(c.words);
    ASSERT_FALSE(p.ok()) << c.words[1];
    EXPECT_NE(p.error().find(c.needle), std::string::npos) << p.error();
    EXPECT_EQ(p.error().find('\n'), std::string::npos) << p.error();
  }
}

// configure's values are the fields of core/profile_fields.h that have a configure word, in order.
TEST(DmcConfigureValues, OneValuePerFieldWithAConfigureWord) {
  size_t words = 0;
  for (const ProfileField& field : profile_fields()) words += field.configure_word.empty() ? 0 : 1;
  EXPECT_EQ(1 + words, kConfigureMaxValues);
}

TEST(DmcConfigureValues, TypeDefaults) {
  Profile hdd = type_defaults(DiskType::kHDD);
  Profile ssd = type_defaults(DiskType::kSSD);
  EXPECT_EQ(hdd.max_read_bytes, 16 * kMiB);
  EXPECT_EQ(ssd.max_read_bytes, 32 * kMiB);
  EXPECT_TRUE(validate(hdd).ok());
  EXPECT_TRUE(validate(ssd).ok());
}

}  // namespace
}  // namespace diskcond::dmc
