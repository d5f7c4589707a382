#include "rawio/compare/mann_whitney.h"

#include <gtest/gtest.h>

#include <vector>

namespace diskcond::rawio::compare {
namespace {

// Expected values computed by enumerating every arrangement (Python, itertools.combinations).
TEST(RawioMannWhitney, ExactPOfSeparatedSamplesIsTwoOverTheArrangements) {
  std::vector<double> a = {1, 2, 3, 4, 5}, b = {6, 7, 8, 9, 10};
  MannWhitney r = mann_whitney(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u_a, 0);
  EXPECT_EQ(r.u_b, 25);
  EXPECT_NEAR(r.p_two_sided, 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney(b, a).p_two_sided, 2.0 / 252, 1e-12);
}

TEST(RawioMannWhitney, ExactPOfInterleavedAndUnequalSamples) {
  std::vector<double> a = {1, 3, 5, 7, 9}, b = {2, 4, 6, 8, 10};
  MannWhitney r = mann_whitney(a, b);
  EXPECT_EQ(r.u_a, 10);
  EXPECT_NEAR(r.p_two_sided, 0.6904761904761905, 1e-12);
  std::vector<double> c = {10, 20, 30, 40}, d = {15, 25, 35, 45, 55, 65};
  MannWhitney s = mann_whitney(c, d);
  EXPECT_EQ(s.u_a, 6);
  EXPECT_NEAR(s.p_two_sided, 0.2571428571428571, 1e-12);
}

TEST(RawioMannWhitney, TiesUseTheNormalApproximationWithTieCorrection) {
  std::vector<double> a = {1, 2, 2, 3, 4}, b = {2, 3, 5, 6, 7, 7};
  MannWhitney r = mann_whitney(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u_a, 4.5);  // the tied pairs count one half
  // variance 29.1818..., z = (|4.5 - 15| - 0.5) / sqrt(variance) = 1.85116
  EXPECT_NEAR(r.p_two_sided, 0.06414661873440443, 1e-12);
}

TEST(RawioMannWhitney, DegenerateSamplesGiveNoEvidence) {
  std::vector<double> same = {5, 5, 5}, empty;
  EXPECT_EQ(mann_whitney(same, same).p_two_sided, 1);
  EXPECT_EQ(mann_whitney(same, empty).p_two_sided, 1);
  EXPECT_EQ(mann_whitney(empty, empty).p_two_sided, 1);
}

}  // namespace
}  // namespace diskcond::rawio::compare
