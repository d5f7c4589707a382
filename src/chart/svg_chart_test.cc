#include "chart/svg_chart.h"

#include <gtest/gtest.h>

#include <regex>

#include <vector>
#include "chart/svg_test_util.h"

namespace diskcond::chart {
namespace {

std::vector<double> bar_heights(const std::string& svg) {
  static const std::regex kBar(
      R"re(class="bar" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)")re");
  std::vector<double> heights;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kBar); it != std::sregex_iterator();
       ++it) {
    heights.push_back(std::stod((*it)[1]));
  }
  return heights;
}

TEST(SvgChart, NiceCeiling) {
  EXPECT_DOUBLE_EQ(nice_ceiling(874.8), 1000);
  EXPECT_DOUBLE_EQ(nice_ceiling(5290.5), 10000);
  EXPECT_DOUBLE_EQ(nice_ceiling(1.7), 2);
  EXPECT_DOUBLE_EQ(nice_ceiling(2.2), 2.5);
  EXPECT_DOUBLE_EQ(nice_ceiling(40), 50);
  EXPECT_DOUBLE_EQ(nice_ceiling(50), 50);
  EXPECT_DOUBLE_EQ(nice_ceiling(0), 1);
}

TEST(SvgChart, EscapesText) {
  EXPECT_EQ(xml_escape("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&apos;");
}

TEST(SvgChart, BarsAreProportionalAndLabelled) {
  BarChart chart{
      "K/sec by test", "K/sec", {"plain", "vinum <test>"}, {{"RR", {250, 500}}, {"SR", {1000, 0}}}};
  std::string svg = render_bar_chart(chart);
  EXPECT_TRUE(testing::well_formed_svg(svg)) << svg;
  std::vector<double> h = bar_heights(svg);
  ASSERT_EQ(h.size(), 4u);
  EXPECT_NEAR(h[1] / h[0], 2.0, 0.01);
  EXPECT_NEAR(h[2] / h[0], 4.0, 0.01);  // axis top is exactly 1000
  EXPECT_EQ(h[3], 0.0);
  EXPECT_NE(svg.find("vinum &lt;test&gt;"), std::string::npos);
  EXPECT_NE(svg.find(">RR<"), std::string::npos);
}

TEST(SvgChart, LogScaleShowsDecades) {
  BarChart chart{"", "K/sec", {"hdd", "native"}, {{"RR", {10, 100000}}}, true};
  std::vector<double> h = bar_heights(render_bar_chart(chart));
  ASSERT_EQ(h.size(), 2u);
  EXPECT_GT(h[0], 0);                   // the small value stays visible
  EXPECT_NEAR(h[1] / h[0], 5.0, 0.01);  // 10 -> 1 decade above the floor of 1; 1e5 -> 5 decades
}

TEST(SvgChart, LinesAndStacking) {
  LineChart chart{
      "Throughput", "seconds", "MiB/s", {{"a", {{0, 1}, {1, 2}, {2, 3}}}, {"b", {{0, 5}}}}};
  std::string line = render_line_chart(chart);
  EXPECT_TRUE(testing::well_formed_svg(line)) << line;
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n') > 10, true);
  EXPECT_NE(line.find("<polyline class=\"series\""), std::string::npos);
  std::string both = stack_svg({line, render_bar_chart({"t", "y", {"s"}, {{"g", {1}}}})});
  EXPECT_TRUE(testing::well_formed_svg(both)) << both;
  EXPECT_NE(both.find("height=\"800\""), std::string::npos);
}

}  // namespace
}  // namespace diskcond::chart
