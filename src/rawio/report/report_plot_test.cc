#include "rawio/report/report_plot.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "chart/svg_test_util.h"
#include "rawio/report/report_command.h"
#include "rawio/report/report_test_util.h"

namespace diskcond::rawio::report {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1)) ++n;
  return n;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ReportPlot, BarsForEveryTestAndIdAndALinePerTestPerRun) {
  std::vector<TargetReport> rows = {testing::seed_plain(), testing::seed_vinum()};
  std::string svg = plot_svg(rows);
  EXPECT_TRUE(chart::testing::well_formed_svg(svg));
  // K/sec: 4 tests x 2 IDs; latency: 4 tests x 5 percentiles x 2 IDs.
  EXPECT_EQ(count(svg, "class=\"bar\""), 4u * 2 + 4u * 5 * 2);
  EXPECT_EQ(count(svg, "class=\"series\""), 2u * 4);  // one line per test per run
  EXPECT_EQ(count(svg, "<title>vinum: 5001.7"), 1u);
  EXPECT_NE(svg.find("Throughput over time: vinum (/dev/vinum/test)"), std::string::npos);
  EXPECT_NE(svg.find("Random read latency"), std::string::npos);
}

TEST(ReportPlot, LogScaleOnlyWhenValuesSpanMoreThanTwoDecades) {
  auto gridlines = [](const std::string& svg) { return count(svg, "stroke=\"#ddd\""); };
  TargetReport slow = testing::seed_plain();
  TargetReport fast = testing::seed_vinum();
  fast.tests.resize(1);
  slow.tests.resize(1);
  std::string linear = plot_svg({slow, fast});  // 874.8 vs 480.8
  fast.tests[0].bytes *= 1000;                  // now 480800: three decades apart
  std::string log = plot_svg({slow, fast});
  // The first chart's axis: 6 linear gridlines, or one per decade (1e1..1e6) on a log scale.
  std::string first_linear = linear.substr(0, linear.find("</g>"));
  std::string first_log = log.substr(0, log.find("</g>"));
  EXPECT_EQ(gridlines(first_linear), 6u);
  EXPECT_EQ(gridlines(first_log), 6u);
  EXPECT_NE(first_log.find(">100<"), std::string::npos) << first_log;
  EXPECT_EQ(first_linear.find(">100<"), std::string::npos);
}

TEST(ReportPlot, ReportWritesSvgAndPng) {
  testing::SeedDatabase db({testing::seed_plain(), testing::seed_vinum()});
  ReportInvocation inv;
  inv.db_path = db.path();
  inv.selection.last = 2;
  inv.plot_path = db.file("runs.svg");
  auto r = testing::capture_report(inv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = slurp(inv.plot_path);
  EXPECT_TRUE(chart::testing::well_formed_svg(svg));
  EXPECT_EQ(count(svg, "class=\"bar\""), 48u);
  EXPECT_EQ(count(svg, "class=\"series\""), 8u);

  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "rsvg-convert not installed";
  inv.plot_path = db.file("runs.png");
  r = testing::capture_report(inv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string png = slurp(inv.plot_path);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_FALSE(std::filesystem::exists(inv.plot_path + ".svg.tmp"));
}

// The polyline points of the first series, as drawn (x, y in SVG units).
std::vector<std::pair<double, double>> first_line(const std::string& svg) {
  static const std::regex kPoints("class=\"series\"[^>]*points=\"([^\"]*)\"");
  std::smatch m;
  std::vector<std::pair<double, double>> points;
  if (!std::regex_search(svg, m, kPoints)) return points;
  std::istringstream in(m[1].str());
  double x, y;
  char comma;
  while (in >> x >> comma >> y) points.emplace_back(x, y);
  return points;
}

TEST(ReportPlot, ThroughputStepsFoldTheLastSliverIntoTheSecondBefore) {
  TargetReport row = testing::seed_plain();
  row.tests.resize(1);
  RunResult& t = row.tests[0];
  t.elapsed_ns = 2'010'000'000;  // 2 s, then 10 ms of transfers in flight
  t.intervals = {{100 << 20, 1}, {100 << 20, 1}, {2 << 20, 1}};
  auto points = first_line(plot_svg({row}));
  ASSERT_EQ(points.size(), 4u);                          // two steps, not three
  EXPECT_DOUBLE_EQ(points[0].second, points[1].second);  // 100 MiB/s
  EXPECT_DOUBLE_EQ(points[2].second, points[3].second);  // 102 MiB / 1.01 s: just above 100
  EXPECT_LT(points[2].second, points[0].second);         // higher on the chart = smaller y
  EXPECT_GT(points[2].second, points[0].second - 2.0);

  t.elapsed_ns = 300'000'000;  // a 0.3 s test: one partial second
  t.intervals = {{30 << 20, 1}};
  points = first_line(plot_svg({row}));
  ASSERT_EQ(points.size(), 2u);
  // 30 MiB in 0.3 s is 100 MiB/s, the top of a 0..100 axis (y = 40); the step covers 0.3 s of
  // a 0..0.5 s axis, 60% of the 670-unit-wide plot area (not a full second).
  EXPECT_NEAR(points[0].second, 40.0, 0.1);
  EXPECT_NEAR(points[1].first - points[0].first, 0.6 * 670, 0.1);
}

TEST(ReportPlot, MissingConverterIsOneClearLine) {
  rawio::testing::ScratchDir dir;
  Status s = write_plot(dir.file("x.png"), plot_svg({testing::seed_plain()}),
                        "rsvg-convert-not-installed");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("rsvg-convert-not-installed not found (install librsvg2-bin"),
            std::string::npos)
      << s.error();
  EXPECT_EQ(s.error().find('\n'), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.png.svg.tmp")));
}

}  // namespace
}  // namespace diskcond::rawio::report
