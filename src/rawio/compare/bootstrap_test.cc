#include "rawio/compare/bootstrap.h"

#include <gtest/gtest.h>

#include <vector>

namespace diskcond::rawio::compare {
namespace {

TEST(RawioBootstrap, MedianOfOddEvenAndEmpty) {
  std::vector<double> odd = {3, 1, 2}, even = {4, 1, 3, 2}, none;
  EXPECT_EQ(median(odd), 2);
  EXPECT_EQ(median(even), 2.5);
  EXPECT_EQ(median(none), 0);
}

TEST(RawioBootstrap, IntervalOfTwoValuesSpansThem) {
  // Resampled medians of {1, 3} are 1, 2 or 3 with chances 1/4, 1/2, 1/4: the 2.5% and 97.5%
  // quantiles of 2000 of them are 1 and 3.
  std::vector<double> v = {1, 3};
  MedianCi ci = bootstrap_median(v, 1);
  EXPECT_EQ(ci.median, 2);
  EXPECT_EQ(ci.low, 1);
  EXPECT_EQ(ci.high, 3);
}

TEST(RawioBootstrap, ConstantAndSingleSamplesHaveNoWidth) {
  std::vector<double> same = {7, 7, 7, 7}, one = {9};
  MedianCi a = bootstrap_median(same, 3);
  EXPECT_EQ(a.low, 7);
  EXPECT_EQ(a.high, 7);
  MedianCi b = bootstrap_median(one, 3);
  EXPECT_EQ(b.median, 9);
  EXPECT_EQ(b.low, 9);
  EXPECT_EQ(b.high, 9);
}

TEST(RawioBootstrap, SeededAndAroundTheMedian) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  MedianCi a = bootstrap_median(v, 42), b = bootstrap_median(v, 42);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_EQ(a.median, 50.5);
  // The order statistics 40 and 61 bound a 95% interval for the median of 100 values.
  EXPECT_GE(a.low, 38);
  EXPECT_LE(a.low, 46);
  EXPECT_GE(a.high, 55);
  EXPECT_LE(a.high, 63);
}

}  // namespace
}  // namespace diskcond::rawio::compare
