#include "harness/integrity/reference_model.h"

#include <gtest/gtest.h>

namespace diskcond::harness::integrity {
namespace {

Bytes bytes(std::initializer_list<uint8_t> b) {
  return Bytes(b);
}

TEST(ReferenceModel, WritesExtendWithZeroFilledGaps) {
  ReferenceModel m(2);
  m.create(0);
  EXPECT_EQ(m.size(0), 0u);
  m.write(0, 2, bytes({7, 8}));
  EXPECT_EQ(m.contents(0), bytes({0, 0, 7, 8}));
  m.write(0, 1, bytes({1}));
  EXPECT_EQ(m.contents(0), bytes({0, 1, 7, 8}));
}

TEST(ReferenceModel, TruncateShrinksAndGrowsWithZeros) {
  ReferenceModel m(1);
  m.create(0);
  m.write(0, 0, bytes({1, 2, 3, 4}));
  m.truncate(0, 2);
  m.truncate(0, 4);
  EXPECT_EQ(m.contents(0), bytes({1, 2, 0, 0}));
}

TEST(ReferenceModel, AllocateGrowsOnlyAndPunchHoleKeepsTheSize) {
  ReferenceModel m(1);
  m.create(0);
  m.write(0, 0, bytes({1, 2, 3, 4}));
  m.allocate(0, 0, 2);
  EXPECT_EQ(m.size(0), 4u);
  m.allocate(0, 3, 3);
  EXPECT_EQ(m.contents(0), bytes({1, 2, 3, 4, 0, 0}));
  m.punch_hole(0, 1, 2);
  EXPECT_EQ(m.contents(0), bytes({1, 0, 0, 4, 0, 0}));
  m.punch_hole(0, 5, 100);  // past the end: only up to the size, which stays
  m.punch_hole(0, 50, 1);
  EXPECT_EQ(m.contents(0), bytes({1, 0, 0, 4, 0, 0}));
}

TEST(ReferenceModel, RenameMovesAndReplaces) {
  ReferenceModel m(3);
  m.create(0);
  m.write(0, 0, bytes({1}));
  m.create(1);
  m.write(1, 0, bytes({2}));
  m.rename(0, 2);
  EXPECT_FALSE(m.occupied(0));
  EXPECT_EQ(m.contents(2), bytes({1}));
  m.rename(2, 1);  // replaces what slot 1 named
  EXPECT_FALSE(m.occupied(2));
  EXPECT_EQ(m.contents(1), bytes({1}));
}

TEST(ReferenceModel, HardLinksShareContentsUntilTheLastNameGoes) {
  ReferenceModel m(3);
  m.create(0);
  m.link(0, 1);
  EXPECT_TRUE(m.same_file(0, 1));
  m.write(1, 0, bytes({9}));
  EXPECT_EQ(m.contents(0), bytes({9}));
  m.unlink(0);
  EXPECT_EQ(m.contents(1), bytes({9}));
  m.create(2);
  m.rename(2, 1);  // the linked file loses its last name
  EXPECT_EQ(m.size(1), 0u);
  EXPECT_FALSE(m.same_file(0, 1));
}

}  // namespace
}  // namespace diskcond::harness::integrity
