#include "rawio/interval_log.h"

#include <gtest/gtest.h>

namespace diskcond::rawio {
namespace {

TEST(RawioIntervals, CountsPerWholeSecondFromStart) {
  IntervalLog log(4);
  log.start(5'000'000'000);
  log.add(5'000'000'000, 100);
  log.add(5'999'999'999, 100);
  log.add(6'000'000'000, 50);
  log.add(7'500'000'000, 10);
  auto s = log.samples();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].bytes, 200u);
  EXPECT_EQ(s[0].transfers, 2u);
  EXPECT_EQ(s[1].bytes, 50u);
  EXPECT_EQ(s[2].transfers, 1u);
}

TEST(RawioIntervals, LateCompletionsLandInLastSlot) {
  IntervalLog log(2);
  log.start(0);
  log.add(10'000'000'000, 7);
  auto s = log.samples();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].bytes, 7u);
}

TEST(RawioIntervals, MergeSumsSecondBySecond) {
  IntervalLog a(3), b(3);
  a.start(0);
  b.start(0);
  a.add(100, 1);
  b.add(100, 2);
  b.add(2'100'000'000, 4);
  a.merge(b);
  auto s = a.samples();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].bytes, 3u);
  EXPECT_EQ(s[0].transfers, 2u);
  EXPECT_EQ(s[1].bytes, 0u);
  EXPECT_EQ(s[2].bytes, 4u);
}

TEST(RawioIntervals, SlotsCoverTheTimeLimit) {
  EXPECT_EQ(interval_slots(10'000'000'000), 11u);
  EXPECT_EQ(interval_slots(1), 2u);
  EXPECT_EQ(interval_slots(1'500'000'000), 3u);
}

}  // namespace
}  // namespace diskcond::rawio
