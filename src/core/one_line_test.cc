#include "core/one_line.h"

#include <gtest/gtest.h>

namespace diskcond {
namespace {

TEST(OneLine, ControlCharactersBecomeEscapes) {
  EXPECT_EQ(one_line("unknown profile 'a\nb'"), "unknown profile 'a\\nb'");
  EXPECT_EQ(one_line("x\r\ty"), "x\\r\\ty");
  EXPECT_EQ(one_line(std::string("\x1b[31mred\x7f", 9)), "\\x1b[31mred\\x7f");
  EXPECT_EQ(one_line(std::string("nul\0byte", 8)), "nul\\x00byte");
}

TEST(OneLine, PrintableTextAndUtf8AreKept) {
  EXPECT_EQ(one_line("no such directory '/srv/data'"), "no such directory '/srv/data'");
  EXPECT_EQ(one_line("52222 \xc2\xb5s"), "52222 \xc2\xb5s");
  EXPECT_EQ(one_line(""), "");
}

}  // namespace
}  // namespace diskcond
