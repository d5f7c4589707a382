#include "dmc/cli/configure_values.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// A word in the field's text form, different for each position and from every default.
std::string distinct_word(const ProfileField& field, size_t position) {
  switch (field.kind) {
    case FieldKind::kBytes:
      return std::to_string(position) + "m";  // MiB
    case FieldKind::kRatio:
      return std::to_string(position);
    default:  // microseconds, MB/s, counts
      return std::to_string(10 + position);
  }
}

// The positional order and the profile field table agree: the values after <type> are the rows
// with a configure word, in the rows' order, the required ones first; the value at each position
// lands in its row's member; the synopsis, the "missing" names and --help name the words in that
// order.
TEST(DmcConfigureValues, PositionalOrderIsTheTablesOrder) {
  std::vector<const ProfileField*> rows;
  size_t required = 0;
  bool optional_seen = false;
  for (const ProfileField& field : profile_fields()) {
    if (field.configure_word.empty()) continue;
    rows.push_back(&field);
    EXPECT_FALSE(field.configure_help.empty()) << field.configure_word;
    if (field.configure_required) {
      EXPECT_FALSE(optional_seen) << field.configure_word << ": required after an optional value";
      ++required;
    } else {
      optional_seen = true;
    }
  }
  ASSERT_EQ(std::vector<const ProfileField*>(configure_fields().begin(), configure_fields().end()),
            rows);
  EXPECT_EQ(configure_min_values(), 1 + required);
  EXPECT_EQ(configure_max_values(), 1 + rows.size());

  std::vector<std::string> words = {"SSD"};
  for (size_t i = 0; i < rows.size(); ++i) words.push_back(distinct_word(*rows[i], 1 + i));
  auto p = parse(words);
  ASSERT_TRUE(p.ok()) << p.error();
  const Profile defaults = type_defaults(DiskType::kSSD);
  for (size_t i = 0; i < rows.size(); ++i) {
    const ProfileField& field = *rows[i];
    auto expected = parse_field_text(field, words[1 + i], field.configure_word);
    ASSERT_TRUE(expected.ok()) << expected.error();
    const int64_t got = visit_field(field, *p, [](auto v) { return static_cast<int64_t>(v); });
    const int64_t was =
        visit_field(field, defaults, [](auto v) { return static_cast<int64_t>(v); });
    EXPECT_EQ(got, *expected) << field.configure_word << " at position " << 1 + i;
    EXPECT_NE(got, was) << field.configure_word << " kept its default";
  }

  const std::string& synopsis = configure_values_synopsis();
  const std::string& help = configure_values_help();
  EXPECT_EQ(synopsis.rfind("<type> ", 0), 0u) << synopsis;
  EXPECT_EQ(help.rfind("  type ", 0), 0u) << help;
  EXPECT_EQ(configure_required_names().front(), "<type>");
  ASSERT_EQ(configure_required_names().size(), 1 + required);
  size_t in_synopsis = 0, in_help = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string word(rows[i]->configure_word);
    const std::string name = "<" + word + ">";
    const size_t at = synopsis.find((i == required ? "[" : " ") + name, in_synopsis);
    EXPECT_NE(at, std::string::npos) << word << " in " << synopsis;
    in_synopsis = at;
    const size_t line = help.find("\n  " + word + " ", in_help);
    EXPECT_NE(line, std::string::npos) << word << " in " << help;
    in_help = line;
    if (i < required) {
      EXPECT_EQ(configure_required_names()[1 + i], name);
    }
  }
  EXPECT_EQ(synopsis.back(), required < rows.size() ? ']' : '>') << synopsis;
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
