#include "rawio/report/run_selection.h"

#include <gtest/gtest.h>

namespace diskcond::rawio::report {
namespace {

using history::RunSummary;
using Ids = std::vector<int64_t>;

// Runs 1..6 labelled plain, vinum, plain, anon, vinum, plain.
std::vector<RunSummary> saved() {
  std::vector<RunSummary> runs;
  const char* labels[] = {"plain", "vinum", "plain", "anon", "vinum", "plain"};
  for (int i = 0; i < 6; ++i) runs.push_back({i + 1, "", "", "", labels[i], {"RR"}});
  return runs;
}

Ids choose(RunSelection s) {
  auto ids = select_runs(saved(), s);
  EXPECT_TRUE(ids) << ids.error();
  return ids ? *ids : Ids{};
}

TEST(ReportSelection, NothingChosenMeansTheNewestRun) {
  EXPECT_EQ(choose({}), Ids{6});
}

TEST(ReportSelection, ByRunIdInTheOrderGivenWithoutDuplicates) {
  EXPECT_EQ(choose({{4, 2, 4}, {}, {}}), (Ids{4, 2}));
}

TEST(ReportSelection, LastNAreTheNewestOldestFirst) {
  EXPECT_EQ(choose({{}, {}, 2}), (Ids{5, 6}));
  EXPECT_EQ(choose({{}, {}, 100}), (Ids{1, 2, 3, 4, 5, 6}));
}

TEST(ReportSelection, ByIdLabelTheNewestOfEach) {
  EXPECT_EQ(choose({{}, {"plain", "vinum"}, {}}), (Ids{6, 5}));
  EXPECT_EQ(choose({{}, {"plain"}, 2}), (Ids{3, 6}));
  EXPECT_EQ(choose({{1}, {"vinum"}, {}}), (Ids{1, 5}));
}

TEST(ReportSelection, UnknownRunsAndLabelsAreErrors) {
  auto run = select_runs(saved(), {{7}, {}, {}});
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error(), "no saved run 7 (see rawio report --list)");
  auto label = select_runs(saved(), {{}, {"zfs"}, {}});
  ASSERT_FALSE(label);
  EXPECT_NE(label.error().find("'zfs'"), std::string::npos);
  EXPECT_FALSE(select_runs({}, {}));
}

TEST(ReportSelection, RowLabelsAddTheRunOnlyWhenAnIdRepeats) {
  std::vector<history::SavedRun> runs(3);
  runs[0].run_id = 1;
  runs[0].report.id = "plain";
  runs[1].run_id = 2;
  runs[1].report.id = "vinum";
  runs[2].run_id = 3;
  runs[2].report.id = "plain";
  EXPECT_EQ(row_labels(runs), (std::vector<std::string>{"plain#1", "vinum", "plain#3"}));
}

}  // namespace
}  // namespace diskcond::rawio::report
