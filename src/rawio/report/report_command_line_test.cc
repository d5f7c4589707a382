#include "rawio/report/report_command_line.h"

#include <gtest/gtest.h>

#include <vector>

namespace diskcond::rawio::report {
namespace {

ParsedReportCommandLine parse(std::vector<const char*> args) {
  args.insert(args.begin(), "report");
  return parse_report_command_line(static_cast<int>(args.size()), args.data());
}

TEST(ReportCommandLine, OnlyTheFirstWordReportIsTheReport) {
  const char* report[] = {"rawio", "report", "--last", "2"};
  const char* run[] = {"rawio", "-a", "report"};  // a target named "report"
  EXPECT_TRUE(is_report_command(4, report));
  EXPECT_FALSE(is_report_command(3, run));
  EXPECT_FALSE(is_report_command(1, report));
}

TEST(ReportCommandLine, EveryOption) {
  auto p = parse({"--db", "/tmp/h.db", "3", "5", "--last", "2", "--id", "plain", "-i", "vinum",
                  "-v", "2", "--json", "--plot", "out.png"});
  ASSERT_EQ(p.action, ParsedReportCommandLine::Action::kRun) << p.text;
  const ReportInvocation& inv = p.invocation;
  EXPECT_EQ(inv.db_path, "/tmp/h.db");
  EXPECT_EQ(inv.selection.run_ids, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(inv.selection.last, 2u);
  EXPECT_EQ(inv.selection.labels, (std::vector<std::string>{"plain", "vinum"}));
  EXPECT_EQ(inv.verbosity, 2);
  EXPECT_TRUE(inv.json);
  EXPECT_FALSE(inv.list);
  EXPECT_EQ(inv.plot_path, "out.png");
  auto defaults = parse({});
  ASSERT_EQ(defaults.action, ParsedReportCommandLine::Action::kRun) << defaults.text;
  EXPECT_FALSE(defaults.invocation.selection.last);
  EXPECT_TRUE(defaults.invocation.db_path.empty());
  EXPECT_TRUE(parse({"--list"}).invocation.list);
}

TEST(ReportCommandLine, BadValuesGiveOneLine) {
  struct Case {
    std::vector<const char*> args;
    const char* expect;
  };
  const Case cases[] = {{{"--plot", "chart.jpg"}, "must end in .svg or .png"},
                        {{"--plot", "svg"}, "must end in .svg or .png"},
                        {{"--last", "0"}, "--last"},
                        {{"abc"}, "runs"},
                        {{"0"}, "runs"},
                        {{"-v", "3"}, "verbose"},
                        {{"--frobnicate"}, "frobnicate"},
                        // Found by the bad-input sweep (src/tools/rawio_bad_input_test.cc).
                        {{"--db", ""}, "--db: the database path is empty"},
                        {{"--plot", ""}, "must end in .svg or .png"},
                        {{"--json", "--json"}, "--json: given 2 times"},
                        {{"--list=yes"}, "--list takes no value"},
                        {{"--list="}, "--list takes no value"},
                        {{"--list", "3"}, "--list shows every saved run; it takes no RUN numbers"},
                        {{"--list", "--last", "2"}, "it takes no --last"},
                        {{"--list", "--id", "a"}, "it takes no --id"},
                        {{"--list", "--plot", "a.svg"}, "it takes no --plot"},
                        {{"--list", "-v", "1"}, "it takes no --verbose"}};
  for (const Case& c : cases) {
    auto p = parse(c.args);
    EXPECT_EQ(p.action, ParsedReportCommandLine::Action::kUsageError) << c.expect;
    EXPECT_NE(p.text.find(c.expect), std::string::npos) << c.expect << " not in: " << p.text;
    EXPECT_EQ(p.text.find('\n'), std::string::npos) << p.text;
  }
}

// Issue 13, item 14: a bad run number is named in one short line (not CLI11's range of a
// double, 300 digits long).
TEST(ReportCommandLine, ABadRunNumberIsOneShortLine) {
  for (const char* word : {"0", "-1", "abc", "1.5", "", "+1", "99999999999999999999"}) {
    auto p = parse({word});
    EXPECT_EQ(p.action, ParsedReportCommandLine::Action::kUsageError) << word;
    EXPECT_EQ(p.text,
              std::string("report: runs: '") + word +
                  "' is not a run number (a whole number from 1) (see rawio report --help)");
  }
}

TEST(ReportCommandLine, HelpDescribesTheChoice) {
  auto p = parse({"--help"});
  ASSERT_EQ(p.action, ParsedReportCommandLine::Action::kPrintAndExit);
  for (const char* word : {"--db", "--last", "--id", "--plot", "--list", "--json", "Exit status"}) {
    EXPECT_NE(p.text.find(word), std::string::npos) << word;
  }
}

}  // namespace
}  // namespace diskcond::rawio::report
