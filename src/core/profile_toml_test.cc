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
  EXPECT_EQ(parse_profile_toml("[ \\", "t.toml").error(), "t.toml:1: tables are not supported in a profile file");
}

}  // namespace
}  // namespace diskcond
