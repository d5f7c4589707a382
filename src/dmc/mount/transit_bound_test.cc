#include "dmc/mount/transit_bound.h"

#include <gtest/gtest.h>

namespace diskcond::mount {
namespace {

TEST(MountTransitBound, IsZeroUntilTheFirstProbe) {
  TransitBound b;
  EXPECT_EQ(b.lower_bound_ns(), 0);
  b.record(0);
  b.record(-5);
  EXPECT_EQ(b.lower_bound_ns(), 0);
  EXPECT_EQ(b.probes(), 0u);
}

TEST(MountTransitBound, WaitsForEnoughProbesBeforeLeading) {
  TransitBound b;
  b.record(2'600'000);  // a new mount's first probe waited for FUSE INIT
  for (size_t i = 2; i < TransitBound::kMinProbes; ++i) b.record(20'000);
  EXPECT_EQ(b.lower_bound_ns(), 0);
  b.record(20'000);
  EXPECT_EQ(b.lower_bound_ns(), 20'000);
  EXPECT_EQ(b.probes(), TransitBound::kMinProbes);
}

TEST(MountTransitBound, IsTheSmallestRecentRoundTripNotAnAverage) {
  TransitBound b;
  for (size_t i = 0; i < TransitBound::kMinProbes; ++i) b.record(30'000);
  EXPECT_EQ(b.lower_bound_ns(), 30'000);
  b.record(12'000);
  b.record(90'000);  // one slow probe (a busy moment) does not raise the bound
  EXPECT_EQ(b.lower_bound_ns(), 12'000);
  EXPECT_EQ(b.probes(), TransitBound::kMinProbes + 2);
}

TEST(MountTransitBound, NeverRisesWithLoadAndFallsAtOnce) {
  TransitBound b;
  for (uint64_t i = 0; i < TransitBound::kMinProbes; ++i) b.record(10'000);  // quiet machine
  for (int i = 0; i < 10'000; ++i) b.record(40'000);  // loaded for a long while
  EXPECT_EQ(b.lower_bound_ns(), 10'000);              // a single request may still get a quiet trip
  b.record(8'000);                                    // faster than ever: lower at once
  EXPECT_EQ(b.lower_bound_ns(), 8'000);
}

}  // namespace
}  // namespace diskcond::mount
