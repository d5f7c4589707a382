// Runs the built rawio binary end to end: --repeat with --save, then rawio compare.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "rawio/test_util.h"

namespace diskcond::rawio {
namespace {

using testing::Outcome;
using testing::rawio;

TEST(RawioCompareBinary, RepeatSaveThenCompareTheRepeats) {
  testing::ScratchDir dir;
  testing::write_pattern_file(dir.file("data"), 4 << 20);
  const std::string db = " --save --db " + dir.file("rawio.db") + " ";
  const std::string quick = " --no-progress -t 1.2s --warmup 0 -n 4m -s 4k -p 1 -e null ";
  Outcome a = rawio("-R -i base --repeat 2" + quick + db + dir.file("data"));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("\nbase#1 "), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("\nbase#2 "), std::string::npos) << a.out;
  EXPECT_NE(a.err.find("rawio: saved as runs 1, 2\n"), std::string::npos) << a.err;
  Outcome b = rawio("-R -i new" + quick + db + dir.file("data"));
  ASSERT_EQ(b.exit_code, 0) << b.err;

  Outcome c = rawio("compare --db " + dir.file("rawio.db") + " --last 2 --json base new");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto doc = nlohmann::json::parse(c.out);
  EXPECT_EQ(doc["a"]["runs"], nlohmann::json::parse("[1, 2]"));
  EXPECT_EQ(doc["b"]["runs"], nlohmann::json::parse("[3]"));
  ASSERT_EQ(doc["tests"].size(), 1u);
  // One whole second per run: 2 against 1 cannot be significant.
  EXPECT_EQ(doc["tests"][0]["a"]["samples"].size(), 2u);
  EXPECT_EQ(doc["tests"][0]["verdict"], "too few samples");

  Outcome bad = rawio("compare --db " + dir.file("rawio.db") + " 1 9");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "rawio: compare: no saved run 9 (see rawio report --list)\n");
}

}  // namespace
}  // namespace diskcond::rawio
