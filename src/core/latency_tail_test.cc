// The latency tail: each piece's service time times a lognormal factor of mean 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/disk_model.h"
#include "core/profile_fields.h"
#include "core/units.h"

namespace diskcond {
namespace {

constexpr uint64_t kCapacity = 100 * kGiB;

std::vector<double> factors(uint32_t tail_milli, uint32_t seed, size_t n) {
  std::vector<double> f(n);
  for (size_t i = 0; i < n; ++i) f[i] = latency_factor(tail_milli, seed, i);
  return f;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

TEST(LatencyTail, OffMeansExactlyTheModelsTime) {
  for (uint32_t tail : {0u, 1000u}) {
    for (uint64_t i = 0; i < 1000; ++i) EXPECT_EQ(latency_factor(tail, 7, i), 1.0);
  }
}

TEST(LatencyTail, TheSameSeedAndPieceGiveTheSameFactor) {
  EXPECT_EQ(factors(4000, 7, 100), factors(4000, 7, 100));
  EXPECT_NE(factors(4000, 7, 100), factors(4000, 8, 100));
  EXPECT_NE(latency_factor(4000, 7, 1), latency_factor(4000, 7, 2));
}

// The factor is lognormal: mean 1, p99 over the median as asked, and its empirical distribution
// within 0.005 (Kolmogorov-Smirnov distance) of the lognormal's over 200,000 pieces.
TEST(LatencyTail, FactorsAreLognormalWithMeanOneAndTheAskedTail) {
  for (uint32_t tail : {2000u, 4000u, 10000u}) {
    const std::vector<double> f = factors(tail, 42, 200'000);
    double sum = 0;
    for (double x : f) sum += x;
    EXPECT_NEAR(sum / static_cast<double>(f.size()), 1.0, 0.01) << tail;
    EXPECT_NEAR(quantile(f, 0.99) / quantile(f, 0.5), tail / 1000.0, 0.03 * tail / 1000.0) << tail;

    const double sigma = std::log(tail / 1000.0) / 2.3263478740408408;
    std::vector<double> sorted = f;
    std::sort(sorted.begin(), sorted.end());
    double ks = 0;
    for (size_t i = 0; i < sorted.size(); ++i) {
      const double z = (std::log(sorted[i]) + sigma * sigma / 2) / sigma;
      const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
      const double n = static_cast<double>(sorted.size());
      ks = std::max({ks, std::abs(cdf - static_cast<double>(i) / n),
                     std::abs(cdf - static_cast<double>(i + 1) / n)});
    }
    EXPECT_LT(ks, 0.005) << tail;
  }
}

Profile ssd_with_tail(uint32_t tail_milli) {
  Profile p;
  p.name = "tail ssd";
  p.type = DiskType::kSSD;
  p.access_time_ns = 100 * kNsPerUs;
  p.read_bytes_per_sec = 400'000'000;
  p.write_bytes_per_sec = 400'000'000;
  p.queue_depth = 1;
  p.latency_tail_milli = tail_milli;
  p.latency_seed = 9;
  return p;
}

// At queue depth 1 each read takes its access and transfer times, each times its piece's factor.
TEST(LatencyTail, EachPieceTakesItsFactorTimesTheModelsTime) {
  DiskModel model(ssd_with_tail(3000), kCapacity);
  const int64_t transfer = transfer_ns(4096, 400'000'000);  // 10,240 ns
  int64_t t = 0;
  for (uint64_t i = 0; i < 50; ++i) {
    const double f = latency_factor(3000, 9, i);
    const int64_t expected =
        t + std::llround(100'000 * f) + std::llround(static_cast<double>(transfer) * f);
    const int64_t done = model.submit({Op::kRead, i * 4096, 4096, t});
    EXPECT_EQ(done, expected) << i;
    t = done;
  }
}

// The mean is kept: 20,000 random 4 KiB reads at queue depth 1 on an HDD take as long in total
// with a tail of 5x as without (within 1.5%), while single reads differ widely.
TEST(LatencyTail, AnHddKeepsItsMeanThroughput) {
  Profile base = ssd_with_tail(0);
  base.type = DiskType::kHDD;
  base.access_time_ns = 10 * kNsPerMs;
  Profile tailed = base;
  tailed.latency_tail_milli = 5000;
  DiskModel plain(base, kCapacity);
  DiskModel uneven(tailed, kCapacity);
  uint64_t x = 12345;
  int64_t t_plain = 0;
  int64_t t_uneven = 0;
  int64_t longest = 0;
  int64_t shortest = INT64_MAX;
  for (int i = 0; i < 20'000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint64_t offset = (x >> 20) % (kCapacity / 4096) * 4096;
    t_plain = plain.submit({Op::kRead, offset, 4096, t_plain});
    const int64_t done = uneven.submit({Op::kRead, offset, 4096, t_uneven});
    longest = std::max(longest, done - t_uneven);
    shortest = std::min(shortest, done - t_uneven);
    t_uneven = done;
  }
  EXPECT_NEAR(static_cast<double>(t_uneven) / static_cast<double>(t_plain), 1.0, 0.015);
  EXPECT_GT(longest, 5 * shortest);
}

TEST(LatencyTail, ProfileTextAndRange) {
  const ProfileField& tail = *find_profile_field("latency_tail");
  EXPECT_EQ(*parse_field_text(tail, "4", "latency_tail"), 4000);
  EXPECT_EQ(*parse_field_text(tail, "2.5x", "latency_tail"), 2500);
  EXPECT_EQ(*parse_field_text(tail, "1.125", "latency_tail"), 1125);
  EXPECT_EQ(*parse_field_text(tail, "0", "latency_tail"), 0);
  EXPECT_EQ(parse_field_text(tail, "0.5", "latency_tail").error(),
            "latency_tail '0.5' is out of range (0 = none, else 1 to 1000 (p99 over the median))");
  EXPECT_EQ(parse_field_text(tail, "1.2345", "latency_tail").error(),
            "invalid latency_tail '1.2345' (a ratio such as 4 or 2.5)");
  EXPECT_FALSE(parse_field_text(tail, "-2", "latency_tail").ok());
  EXPECT_FALSE(parse_field_text(tail, "x", "latency_tail").ok());
  EXPECT_EQ(json_key(tail), "latency_tail");
  EXPECT_EQ(json_divisor(tail), 1000);
  Profile p = ssd_with_tail(500);
  EXPECT_EQ(check_field(tail, p).error(),
            "latency tail 0.5 is out of range (0 = none, else 1 to 1000 (p99 over the median))");
}

}  // namespace
}  // namespace diskcond
