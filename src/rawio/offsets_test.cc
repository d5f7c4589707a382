#include "rawio/offsets.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace diskcond::rawio {
namespace {

TEST(RawioOffsets, WorkerShareSplitsCountLikeTheOriginal) {
  // 10 transfers among 4 workers: 3, 3, 2, 2.
  EXPECT_EQ(worker_share(10, 4, 0), 3u);
  EXPECT_EQ(worker_share(10, 4, 1), 3u);
  EXPECT_EQ(worker_share(10, 4, 2), 2u);
  EXPECT_EQ(worker_share(10, 4, 3), 2u);
  uint64_t total = 0;
  for (unsigned w = 0; w < 7; ++w) total += worker_share(1001, 7, w);
  EXPECT_EQ(total, 1001u);
}

TEST(RawioOffsets, SequentialWorkersWalkDisjointContiguousSlices) {
  const uint64_t area = 64 * 4096;
  std::set<uint64_t> seen;
  for (unsigned w = 0; w < 4; ++w) {
    OffsetGenerator gen(false, area, 4096, 4, w, 1);
    for (int i = 0; i < 16; ++i) {
      uint64_t off = gen.next();
      EXPECT_EQ(off, (w * 16 + i) * 4096u);
      EXPECT_TRUE(seen.insert(off).second);
    }
    EXPECT_EQ(gen.next(), w * 16 * 4096u) << "wraps inside its own slice";
  }
  EXPECT_EQ(seen.size(), 64u);
}

TEST(RawioOffsets, RandomOffsetsAreAlignedInsideTheAreaAndCoverIt) {
  const uint64_t area = 100 * 16384 + 5;  // a tail smaller than a transfer is never touched
  OffsetGenerator gen(true, area, 16384, 8, 3, 99);
  std::set<uint64_t> seen;
  for (int i = 0; i < 5000; ++i) {
    uint64_t off = gen.next();
    ASSERT_EQ(off % 16384, 0u);
    ASSERT_LE(off + 16384, area);
    seen.insert(off);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(RawioOffsets, SameSeedSameOffsetsDifferentSeedOrWorkerDifferent) {
  auto draw = [](uint64_t seed, unsigned worker) {
    OffsetGenerator gen(true, 1 << 30, 4096, 8, worker, seed);
    std::vector<uint64_t> v;
    for (int i = 0; i < 100; ++i) v.push_back(gen.next());
    return v;
  };
  EXPECT_EQ(draw(5, 0), draw(5, 0));
  EXPECT_NE(draw(5, 0), draw(6, 0));
  EXPECT_NE(draw(5, 0), draw(5, 1));
}

TEST(RawioOffsets, RandomIsRoughlyUniform) {
  Random64 rng(3);
  std::vector<int> counts(10);
  for (int i = 0; i < 100000; ++i) ++counts[rng.below(10)];
  for (int c : counts) {
    EXPECT_GT(c, 9500);
    EXPECT_LT(c, 10500);
  }
}

}  // namespace
}  // namespace diskcond::rawio
