#include "rawio/report/report_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "rawio/formatter.h"
#include "rawio/report/report_test_util.h"

namespace diskcond::rawio::report {
namespace {

using testing::capture_report;
using testing::SeedDatabase;

ReportInvocation on(const SeedDatabase& db) {
  ReportInvocation inv;
  inv.db_path = db.path();
  return inv;
}

TEST(ReportCommand, TwoSavedRunsSideBySideInTheSeedTable) {
  SeedDatabase db({testing::seed_plain(), testing::seed_vinum()});
  ASSERT_TRUE(db.ok());
  ReportInvocation inv = on(db);
  inv.selection.last = 2;
  auto r = capture_report(inv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "            Random read  Sequential read    Random write Sequential write\n"
            "ID          K/sec  /sec    K/sec  /sec     K/sec  /sec     K/sec  /sec\n"
            "plain       874.8    54   2683.1   164     868.0    54    1380.3    84\n"
            "vinum       480.8    30   5001.7   305     478.2    29    1244.2    76\n"
            "Measured plain: RR 10.00 s, SR 10.00 s, RW 10.00 s, SW 10.00 s\n"
            "Measured vinum: RR 10.00 s, SR 10.00 s, RW 10.00 s, SW 10.00 s\n");
}

TEST(ReportCommand, VerboseRowsForTwoRuns) {
  SeedDatabase db({testing::seed_plain(), testing::seed_vinum()});
  ReportInvocation inv = on(db);
  inv.selection.run_ids = {2, 1};  // as given
  inv.verbosity = 1;
  auto r = capture_report(inv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Test    ID        K/sec    /sec %User  %Sys %Total\n"
            "RR      vinum     480.8      30   0.2  18.6   18.8  16384\n"
            "SR      vinum    5001.7     305   0.9  88.8   89.7  16384\n"
            "RW      vinum     478.2      29   0.2  15.4   15.6  16384\n"
            "SW      vinum    1244.2      76   0.2  53.6   53.8  16384\n"
            "RR      plain     874.8      54   0.1   8.8    8.9  16384\n"
            "SR      plain    2683.1     164   0.9  85.8   86.7  16384\n"
            "RW      plain     868.0      54   0.2  10.7   10.9  16384\n"
            "SW      plain    1380.3      84   0.1  16.4   16.5  16384\n"
            "Measured vinum: RR 10.00 s, SR 10.00 s, RW 10.00 s, SW 10.00 s\n"
            "Measured plain: RR 10.00 s, SR 10.00 s, RW 10.00 s, SW 10.00 s\n");
}

TEST(ReportCommand, LatencyTableFromTheStoredHistogram) {
  SeedDatabase db({testing::seed_plain()});
  ReportInvocation inv = on(db);
  inv.verbosity = 2;
  auto r = capture_report(inv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The tables from the database are those of the run as measured, latency percentiles included.
  std::vector<TargetReport> measured = {testing::seed_plain()};
  EXPECT_EQ(r.out, make_text_formatter(2)->render(measured));
  EXPECT_NE(r.out.find("RR      plain    17997.8   32399.4   35635.2   36000.0   36000.0\n"),
            std::string::npos)
      << r.out;
}

TEST(ReportCommand, ListShowsEveryRun) {
  SeedDatabase db({testing::seed_plain(), testing::seed_vinum()});
  ReportInvocation inv = on(db);
  inv.list = true;
  auto r = capture_report(inv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "Run  When                  Host    Target           ID     Tests\n"
            "  1  2026-11-30T06:42:21Z  bsdbox  /dev/rda1s1e     plain  RR SR RW SW\n"
            "  2  2026-11-30T06:42:21Z  bsdbox  /dev/vinum/test  vinum  RR SR RW SW\n");
}

TEST(ReportCommand, RepeatedIdsAreToldApartByRun) {
  SeedDatabase db({testing::seed_plain(), testing::seed_vinum(), testing::seed_plain()});
  ReportInvocation inv = on(db);
  inv.selection.labels = {"plain"};
  inv.selection.last = 5;
  auto r = capture_report(inv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nplain#1     874.8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nplain#3     874.8"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("vinum"), std::string::npos) << r.out;
}

TEST(ReportCommand, JsonHasOneEntryPerRun) {
  SeedDatabase db({testing::seed_plain(), testing::seed_vinum()});
  ReportInvocation inv = on(db);
  inv.selection.last = 2;
  inv.json = true;
  auto r = capture_report(inv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][1]["run"], 2);
  EXPECT_EQ(doc["runs"][1]["host"], "bsdbox");
  EXPECT_EQ(doc["runs"][1]["options"]["seed"], 1);
  EXPECT_EQ(doc["runs"][1]["target"]["id"], "vinum");
  EXPECT_EQ(doc["runs"][1]["target"]["tests"][1]["test"], "SR");
  EXPECT_EQ(doc["runs"][1]["target"]["tests"][1]["intervals"]["samples"].size(), 10u);
}

TEST(ReportCommand, BadInputGivesOneLineAndNonZeroExit) {
  SeedDatabase db({testing::seed_plain()});
  struct Case {
    ReportInvocation inv;
    int exit_code;
    const char* expect;
  };
  ReportInvocation unknown_run = on(db);
  unknown_run.selection.run_ids = {9};
  ReportInvocation unknown_id = on(db);
  unknown_id.selection.labels = {"zfs"};
  ReportInvocation missing_db;
  missing_db.db_path = db.file("missing.db");
  ReportInvocation bad_plot = on(db);
  bad_plot.plot_path = db.file("no/such/dir/plot.svg");
  const Case cases[] = {{unknown_run, 2, "no saved run 9"},
                        {unknown_id, 2, "no saved run has the ID 'zfs'"},
                        {missing_db, 1, "no history database at"},
                        {bad_plot, 1, "cannot write"}};
  for (const Case& c : cases) {
    auto r = capture_report(c.inv);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.expect;
    EXPECT_EQ(r.out, "") << c.expect;
    EXPECT_EQ(r.err.find("rawio: report: "), 0u) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace diskcond::rawio::report
