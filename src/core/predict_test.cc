#include "core/predict.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/units.h"

namespace diskcond {
namespace {

Workload workload(Pattern pattern, Op direction, uint64_t block, uint32_t depth) {
  return {pattern, direction, block, depth};
}

const Profile& builtin(size_t i) {
  return builtin_profiles()[i];
}

// Property 8, exact figures for the published profiles.
TEST(Predict, SlowSsdRandomReads) {
  // QD1: 1 / (100 us + 4 KiB / 250 MiB/s) = 1 / 115.625 us.
  Prediction qd1 = predict(builtin(3), workload(Pattern::kRandom, Op::kRead, 4096, 1));
  EXPECT_NEAR(qd1.iops, 1e9 / 115625.0, 1e-6);
  EXPECT_NEAR(qd1.mean_latency_ns, 115625.0, 1e-6);
  // QD4: four accesses overlap.
  Prediction qd4 = predict(builtin(3), workload(Pattern::kRandom, Op::kRead, 4096, 4));
  EXPECT_NEAR(qd4.iops, 4e9 / 115625.0, 1e-6);
  // QD32: the 250 MiB/s channel caps it at 64000 IOPS.
  Prediction qd32 = predict(builtin(3), workload(Pattern::kRandom, Op::kRead, 4096, 32));
  EXPECT_NEAR(qd32.iops, 64000.0, 1e-6);
  EXPECT_NEAR(qd32.bytes_per_sec, 250.0 * kMiB, 1e-3);
}

TEST(Predict, FaultyHddIsFiftyMegabytesSequentialAtAnyDepth) {
  for (uint32_t depth : {1u, 32u}) {
    Prediction p = predict(builtin(0), workload(Pattern::kSequential, Op::kWrite, kMiB, depth));
    EXPECT_NEAR(p.bytes_per_sec, 50.0 * kMiB, 1e-3) << depth;
  }
  // Random 4 KiB: one seek of 52.222 ms on average plus 78.125 us of transfer.
  Prediction r = predict(builtin(0), workload(Pattern::kRandom, Op::kRead, 4096, 8));
  EXPECT_NEAR(r.iops, 1e9 / (52222000.0 + 78125.0), 1e-9);
}

// Random I/O within a quarter of the disk: mean seek = A (1/3 + (2/3) sqrt(1/4)) = 2A/3.
TEST(Predict, HddRandomWithinASmallerSpanSeeksLess) {
  Workload w = workload(Pattern::kRandom, Op::kRead, 4096, 1);
  w.span_fraction = 0.25;
  Prediction p = predict(builtin(0), w);
  EXPECT_NEAR(p.iops, 1e9 / (52222000.0 * 2 / 3 + 78125.0), 1e-9);
  Prediction simulated = simulate(builtin(0), w, 500 * kGiB, 20000, 3);
  EXPECT_NEAR(simulated.iops / p.iops, 1.0, 0.015);
  // SSDs do not care where the data is.
  EXPECT_DOUBLE_EQ(predict(builtin(3), w).iops,
                   predict(builtin(3), workload(Pattern::kRandom, Op::kRead, 4096, 1)).iops);
}

TEST(Predict, UnlimitedProfileIsInfinite) {
  Profile p = builtin(3);
  p.access_time_ns = 0;
  p.read_bytes_per_sec = 0;
  EXPECT_TRUE(std::isinf(predict(p, workload(Pattern::kRandom, Op::kRead, 4096, 1)).iops));
}

// The closed-form prediction agrees with the model run as a closed loop, for every built-in
// profile and the workloads the benchmarks use.
TEST(Predict, MatchesSimulationForEveryBuiltinProfile) {
  const Workload workloads[] = {
      workload(Pattern::kSequential, Op::kRead, kMiB, 1),
      workload(Pattern::kSequential, Op::kWrite, kMiB, 32),
      workload(Pattern::kRandom, Op::kRead, 4096, 1),
      workload(Pattern::kRandom, Op::kRead, 4096, 32),
      workload(Pattern::kRandom, Op::kWrite, 4096, 1),
      workload(Pattern::kRandom, Op::kRead, 64 * kMiB, 2),
  };
  for (const Profile& profile : builtin_profiles()) {
    for (const Workload& w : workloads) {
      const bool hdd_random = profile.type == DiskType::kHDD && w.pattern == Pattern::kRandom;
      const uint64_t commands = hdd_random ? 20000 : 2000;
      Prediction predicted = predict(profile, w);
      Prediction simulated = simulate(profile, w, 500 * kGiB, commands, 42);
      // HDD random seeks are sampled; everything else is deterministic up to the warm-up.
      const double tolerance = hdd_random ? 0.015 : 0.005;
      EXPECT_NEAR(simulated.iops / predicted.iops, 1.0, tolerance)
          << profile.name << " block " << w.block_bytes << " qd " << w.queue_depth;
    }
  }
}

}  // namespace
}  // namespace diskcond
