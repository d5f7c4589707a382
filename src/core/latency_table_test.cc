// The empirical latency table: parsing, normalizing to mean 1, and the seeded sampler, exactly.
#include "core/latency_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/disk_model.h"
#include "core/profile_toml.h"
#include "core/units.h"

namespace diskcond {
namespace {

TEST(LatencyTable, IsNormalizedToMeanOne) {
  auto t = parse_latency_table("0.5:0.9,0.99:3.0,1:8");
  ASSERT_TRUE(t.ok()) << t.error();
  // Mean of the quantile function: 0.5*0.9 + 0.49*(0.9+3)/2 + 0.01*(3+8)/2 = 1.4605.
  const double mean = 1.4605;
  ASSERT_EQ(t->points.size(), 3u);
  EXPECT_DOUBLE_EQ(t->points[0].multiplier, 0.9 / mean);
  EXPECT_DOUBLE_EQ(t->points[1].multiplier, 3.0 / mean);
  EXPECT_DOUBLE_EQ(t->points[2].multiplier, 8.0 / mean);
  EXPECT_DOUBLE_EQ(latency_table_quantile(*t, 0.25), 0.9 / mean) << "flat up to the first point";
  EXPECT_DOUBLE_EQ(latency_table_quantile(*t, 0.745), (0.9 + 3.0) / 2 / mean);
  EXPECT_DOUBLE_EQ(latency_table_quantile(*t, 0.995), (3.0 + 8.0) / 2 / mean);
  auto flat = parse_latency_table("1:5");
  ASSERT_TRUE(flat.ok());
  EXPECT_DOUBLE_EQ(latency_table_quantile(*flat, 0.3), 1.0)
      << "one point: every command as the model";
}

TEST(LatencyTable, TheSamplerIsTheQuantileFunctionAtASeededDraw) {
  auto t = parse_latency_table("0.5:1,1:3");  // mean 0.5*1 + 0.5*2 = 1.5
  ASSERT_TRUE(t.ok());
  for (uint64_t i = 0; i < 100; ++i) {
    const double u = latency_table_draw(7, i);
    const double expected = u <= 0.5 ? 1 / 1.5 : (1 + 2 * (u - 0.5) / 0.5) / 1.5;
    EXPECT_DOUBLE_EQ(latency_table_factor(*t, 7, i), expected) << i;
  }
  EXPECT_NE(latency_table_draw(7, 1), latency_table_draw(8, 1));
  EXPECT_EQ(latency_table_draw(7, 1), latency_table_draw(7, 1));
  // Over many pieces the factors' mean is 1 and the median is the table's.
  std::vector<double> f;
  double sum = 0;
  for (uint64_t i = 0; i < 200'000; ++i) {
    f.push_back(latency_table_factor(*t, 3, i));
    sum += f.back();
  }
  EXPECT_NEAR(sum / static_cast<double>(f.size()), 1.0, 0.005);
  std::sort(f.begin(), f.end());
  EXPECT_NEAR(f[f.size() * 9 / 10], (1 + 2 * 0.8) / 1.5, 0.01);
}

TEST(LatencyTable, RefusesWithOneLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "latency_table: no point (such as 0.5:0.9,0.99:3,1:8)"},
      {"0.5", "latency_table: '0.5' is not quantile:multiplier (such as 0.99:3)"},
      {"x:1", "latency_table: 'x' in 'x:1' is not a number (a quantile)"},
      {"0:1,1:2", "latency_table: quantile 0 is not above 0 and at most 1"},
      {"0.5:0,1:2", "latency_table: multiplier 0 is not above 0 (to 1e6)"},
      {"0.5:1,0.4:2,1:3", "latency_table: quantiles must rise from one point to the next"},
      {"0.5:2,1:1", "latency_table: multipliers may not fall as the quantile rises"},
      {"0.5:1,0.9:2", "latency_table: the last point's quantile must be 1 (the slowest command)"},
  };
  for (auto [text, error] : cases) {
    auto t = parse_latency_table(text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.error(), error) << text;
  }
}

// In the model: each piece's service time times its factor; a profile file gives the table.
TEST(LatencyTable, TheModelScalesEachPieceByItsFactor) {
  auto p = parse_profile_toml(
      "name = \"table ssd\"\ntype = \"SSD\"\naccess_time = \"100us\"\n"
      "read_throughput = \"0\"\nwrite_throughput = \"0\"\nio_queue_depth = 1\n"
      "latency_table = \"0.5:1,1:3\"\nlatency_seed = 9\n",
      "t.toml");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->latency_table, "0.5:1,1:3");
  DiskModel model(*p, kGiB);
  const LatencyTable t = *parse_latency_table("0.5:1,1:3");
  int64_t now = 0;
  for (uint64_t i = 0; i < 20; ++i) {
    const int64_t done = model.submit({Op::kRead, 0, 4096, now});
    EXPECT_EQ(done - now, std::llround(100'000 * latency_table_factor(t, 9, i))) << i;
    now = done;
  }
  Profile both = *p;
  both.latency_tail_milli = 4000;
  EXPECT_EQ(validate(both).error(), "a profile gives latency_tail or latency_table, not both");
  Profile bad = *p;
  bad.latency_table = "1";
  EXPECT_FALSE(validate(bad).ok());
}

}  // namespace
}  // namespace diskcond
