#include "core/profile_toml.h"

#include <gtest/gtest.h>

namespace diskcond {
namespace {

TEST(ProfileToml, NonAsciiNamesAndEscapes) {
  auto ok = parse_profile_toml(
      "name = \"Disque lent \\u00e9 \xd0\x91\"\ntype = 'HDD'  # \xd0\x91\naccess_time = 1\n"
      "read_throughput = 1\nwrite_throughput = 1\n",
      "fr.toml");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok->name, "Disque lent \xc3\xa9 \xd0\x91");
  // Found by fuzzing toml++ 3.3 (which this parser replaced): non-ASCII text outside strings and
  // a broken table header. Both are plain errors here.
  auto r = parse_profile_toml("name = \"x\"\n\xef\xb9\xbfu", "odd.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "odd.toml:2: expected key = value");
  EXPECT_EQ(parse_profile_toml("[ \\", "t.toml").error(),
            "t.toml:1: tables are not supported in a profile file");
}

// io_queue_depth is the key (as in JSON); queue_depth, its spelling before issue 14, still reads.
TEST(ProfileToml, QueueDepthUnderItsKeyOrItsOldSpelling) {
  const std::string base =
      "name = \"Q\"\ntype = \"SSD\"\naccess_time = 1\nread_throughput = 1\nwrite_throughput = 1\n";
  auto now = parse_profile_toml(base + "io_queue_depth = 4\n", "q.toml");
  ASSERT_TRUE(now.ok()) << now.error();
  EXPECT_EQ(now->queue_depth, 4u);
  auto before = parse_profile_toml(base + "queue_depth = 5\n", "q.toml");
  ASSERT_TRUE(before.ok()) << before.error();
  EXPECT_EQ(before->queue_depth, 5u);
  auto both = parse_profile_toml(base + "io_queue_depth = 4\nqueue_depth = 5\n", "q.toml");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error(), "q.toml:7: 'queue_depth' gives io_queue_depth again (line 6)");
  auto zero = parse_profile_toml(base + "queue_depth = 0\n", "q.toml");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error(), "q.toml:6: queue_depth '0' is out of range (1 to 65536)");
}

}  // namespace
}  // namespace diskcond
