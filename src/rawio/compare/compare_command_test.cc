#include "rawio/compare/compare_command.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "rawio/command_line.h"
#include "rawio/report/report_test_util.h"

namespace diskcond::rawio::compare {
namespace {

using report::testing::read_all;
using report::testing::SeedDatabase;

struct Captured {
  int exit_code;
  std::string out, err;
};

Captured capture(const std::vector<const char*>& words) {
  std::vector<const char*> argv = {"compare"};
  argv.insert(argv.end(), words.begin(), words.end());
  ParsedCompareCommandLine parsed =
      parse_compare_command_line(static_cast<int>(argv.size()), argv.data());
  if (parsed.action != ParsedCompareCommandLine::Action::kRun) return {-1, parsed.text, ""};
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  int code = run_compare(parsed.invocation, out, err);
  return {code, read_all(out), read_all(err)};
}

TEST(RawioCompareCommand, TheSeedsVinumAgainstItsPlainDisk) {
  SeedDatabase db({report::testing::seed_plain(), report::testing::seed_vinum()});
  ASSERT_TRUE(db.ok());
  const std::string path = db.path();
  Captured r = capture({"--db", path.c_str(), "plain", "vinum"});
  EXPECT_EQ(r.exit_code, kExitRegression) << r.err;
  EXPECT_EQ(r.out,
            "A: plain, run 1 (/dev/rda1s1e, 2026-11-30T06:42:21Z)\n"
            "B: vinum, run 2 (/dev/vinum/test, 2026-11-30T06:42:21Z)\n"
            "Test  Seconds       A IOPS [95% CI]       B IOPS [95% CI]  Change        p  Verdict\n"
            "RR      10/10     54.0 [54.0, 54.0]     30.0 [30.0, 30.0]  -44.4%  <0.0001  slower\n"
            "SR      10/10  164.0 [164.0, 164.0]  305.0 [305.0, 305.0]  +86.0%  <0.0001  faster\n"
            "RW      10/10     54.0 [54.0, 54.0]     29.0 [29.0, 29.0]  -46.3%  <0.0001  slower\n"
            "SW      10/10     84.0 [84.0, 84.0]     76.0 [76.0, 76.0]   -9.5%  <0.0001  slower\n"
            "Regression: RR is 44.4% slower in B, beyond the 5.0% threshold\n"
            "Regression: RW is 46.3% slower in B, beyond the 5.0% threshold\n"
            "Regression: SW is 9.5% slower in B, beyond the 5.0% threshold\n");
  Captured loose = capture({"--db", path.c_str(), "--threshold", "50%", "1", "2"});
  EXPECT_EQ(loose.exit_code, 0) << loose.out;
  EXPECT_EQ(loose.out.find("Regression"), std::string::npos);
}

TEST(RawioCompareCommand, TheSameDiskTwiceIsNoSignificantDifference) {
  SeedDatabase db({report::testing::seed_plain(), report::testing::seed_plain()});
  const std::string path = db.path();
  Captured r = capture({"--db", path.c_str(), "1", "2", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["command"], "compare");
  EXPECT_EQ(doc["tests"].size(), 4u);
  for (const auto& t : doc["tests"]) EXPECT_EQ(t["verdict"], "no significant difference");
  EXPECT_EQ(doc["regression"], false);
  EXPECT_EQ(doc["a"]["runs"], nlohmann::json::parse("[1]"));
}

TEST(RawioCompareCommand, LastPoolsTheNewestRunsOfAnId) {
  SeedDatabase db({report::testing::seed_plain(), report::testing::seed_plain(),
                   report::testing::seed_vinum()});
  const std::string path = db.path();
  Captured r = capture({"--db", path.c_str(), "--last", "2", "plain", "vinum"});
  EXPECT_NE(r.out.find("A: plain, runs 1, 2 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RR      20/10 "), std::string::npos) << r.out;
}

TEST(RawioCompareCommand, UnknownRunsAndIdsAreUsageErrors) {
  SeedDatabase db({report::testing::seed_plain()});
  const std::string path = db.path();
  Captured r = capture({"--db", path.c_str(), "1", "7"});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_EQ(r.err, "rawio: compare: no saved run 7 (see rawio report --list)\n");
  Captured id = capture({"--db", path.c_str(), "plain", "nosuch"});
  EXPECT_EQ(id.exit_code, kExitUsage);
  EXPECT_NE(id.err.find("no saved run has the ID 'nosuch'"), std::string::npos) << id.err;
}

TEST(RawioCompareCommandLine, OptionsAndErrors) {
  auto parse = [](std::vector<const char*> words) {
    words.insert(words.begin(), "compare");
    return parse_compare_command_line(static_cast<int>(words.size()), words.data());
  };
  auto ok = parse(
      {"3", "plain", "--metric", "p99", "--alpha", "0.05", "--threshold", "10%", "--seed", "9"});
  ASSERT_EQ(ok.action, ParsedCompareCommandLine::Action::kRun) << ok.text;
  EXPECT_EQ(*ok.invocation.a.run_id, 3);
  EXPECT_EQ(ok.invocation.b.label, "plain");
  EXPECT_EQ(ok.invocation.options.metric, Metric::kP99);
  EXPECT_EQ(ok.invocation.options.alpha, 0.05);
  EXPECT_DOUBLE_EQ(ok.invocation.options.threshold, 0.10);
  EXPECT_EQ(ok.invocation.options.seed, 9u);
  EXPECT_EQ(parse({"1"}).action, ParsedCompareCommandLine::Action::kUsageError);
  EXPECT_EQ(parse({"1", "2", "--metric", "p50"}).text,
            "compare: --metric: 'p50' is not iops or p99");
  EXPECT_EQ(parse({"1", "2", "--alpha", "2"}).text,
            "compare: --alpha: '2' is not a probability from 1e-9 to 0.5");
  EXPECT_EQ(parse({"1", "2", "--threshold", "x"}).text,
            "compare: --threshold: 'x' is not a fraction such as 5% or 0.05");
  EXPECT_EQ(parse({"1", "2", "--threshold", "5"}).text,
            "compare: --threshold: '5' would be 500%; write 5% for percent (or 0.05 for 5%)");
  EXPECT_DOUBLE_EQ(parse({"1", "2", "--threshold", "150%"}).invocation.options.threshold, 1.5);
  EXPECT_DOUBLE_EQ(parse({"1", "2", "--threshold", "1"}).invocation.options.threshold, 1.0);
  EXPECT_EQ(parse({"1", "2", "--plot", "a.pdf"}).text,
            "compare: --plot a.pdf: the file name must end in .svg or .png");
  EXPECT_EQ(parse({"--help"}).action, ParsedCompareCommandLine::Action::kPrintAndExit);
}

}  // namespace
}  // namespace diskcond::rawio::compare
