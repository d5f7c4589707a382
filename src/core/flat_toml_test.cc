#include "core/flat_toml.h"

#include <gtest/gtest.h>

namespace diskcond {
namespace {

TEST(FlatToml, KeysStringsNumbersAndComments) {
  auto r = parse_flat_toml(
      "# a profile\n\n"
      "name = \"Slow \\\"disk\\\" \\u00e9\\U0001F600\"  # trailing comment\n"
      "type='HDD'\r\n"
      "  queue-depth = 1_024\n"
      "access_time = \"52222us\"\n",
      "p.toml");
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].key, "name");
  EXPECT_EQ((*r)[0].value, "Slow \"disk\" \xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE((*r)[0].is_string);
  EXPECT_EQ((*r)[0].line, 3);
  EXPECT_EQ((*r)[1].value, "HDD");
  EXPECT_EQ((*r)[2].key, "queue-depth");
  EXPECT_EQ((*r)[2].value, "1024");
  EXPECT_FALSE((*r)[2].is_string);
  EXPECT_EQ((*r)[3].line, 6);
}

TEST(FlatToml, ErrorsNameFileAndLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"a = 1\nb 2", "p.toml:2: expected '=' after 'b'"},
      {"[table]", "p.toml:1: tables are not supported in a profile file"},
      {"= 3", "p.toml:1: expected key = value"},
      {"a = -3", "p.toml:1: expected a value: \"text\", 'text' or a number"},
      {"a = 3.5", "p.toml:1: unexpected text after the value of 'a'"},
      {"a = true", "p.toml:1: expected a value: \"text\", 'text' or a number"},
      {"a = 007", "p.toml:1: leading zero in a number"},
      {"a = 1__0", "p.toml:1: misplaced '_' in a number"},
      {"a = 10_", "p.toml:1: expected a value: \"text\", 'text' or a number"},
      {"a = \"open", "p.toml:1: unterminated string"},
      {"a = 'open", "p.toml:1: unterminated string"},
      {"a = \"\\q\"", "p.toml:1: unknown escape '\\q'"},
      {"a = \"\\uD800\"", "p.toml:1: \\u escape is not a Unicode scalar value"},
      {"a = \"\\u12\"", "p.toml:1: short \\u escape"},
      {"a = \"\\u12zz\"", "p.toml:1: bad \\u escape"},
      {"a = \"x\" y", "p.toml:1: unexpected text after the value of 'a'"},
      {"a = \"\"\"x\"\"\"", "p.toml:1: multi-line strings are not supported in a profile file"},
      {"a = 1\n\na = 2", "p.toml:3: duplicate key 'a' (first on line 1)"},
      {"a = \"x\ty\x01\"", "p.toml:1: control character in a string"},
  };
  for (auto [text, error] : cases) {
    auto r = parse_flat_toml(text, "p.toml");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error(), error) << text;
  }
}

}  // namespace
}  // namespace diskcond
