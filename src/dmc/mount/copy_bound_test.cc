#include "dmc/mount/copy_bound.h"

#include <gtest/gtest.h>

namespace diskcond::mount {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kEnough = CopyBound::kMinSamples;

// `n` replies of `payload` bytes, each taking `ns`.
void replies(CopyBound& b, uint64_t payload, uint64_t n, int64_t ns) {
  for (uint64_t i = 0; i < n; ++i) b.record(payload, ns);
}

TEST(MountCopyBound, IsZeroUntilEnoughRepliesOfBothKinds) {
  CopyBound b;
  EXPECT_EQ(b.lead_ns(kMiB), 0);
  replies(b, kMiB, kEnough, 200'000);
  EXPECT_EQ(b.lead_ns(kMiB), 0);  // no small replies yet: nothing to subtract
  replies(b, 104, kEnough - 1, 3'000);
  EXPECT_EQ(b.lead_ns(kMiB), 0);
  b.record(104, 3'000);
  EXPECT_EQ(b.lead_ns(kMiB), 147'750);  // 3/4 of 200 us less a data-less reply's 3 us
}

TEST(MountCopyBound, ASlowFirstReplyIsNotTrustedAlone) {
  CopyBound b;
  replies(b, 0, kEnough, 2'000);
  b.record(kMiB, 2'500'000);  // a cold first reply
  EXPECT_EQ(b.lead_ns(kMiB), 0);
  replies(b, kMiB, kEnough - 1, 150'000);
  EXPECT_EQ(b.lead_ns(kMiB), 111'000);
}

TEST(MountCopyBound, IsTheSmallestNotAnAverageAndFallsAtOnce) {
  CopyBound b;
  replies(b, 0, kEnough, 2'000);
  replies(b, kMiB, kEnough, 180'000);
  replies(b, kMiB, 200, 400'000);  // a loaded while: no higher
  EXPECT_EQ(b.lead_ns(kMiB), 133'500);
  b.record(kMiB, 120'000);  // one faster copy: lower at once
  EXPECT_EQ(b.lead_ns(kMiB), 88'500);
  b.record(100, 1'000);  // a faster data-less reply: what a data reply adds is that much more
  EXPECT_EQ(b.lead_ns(kMiB), 89'250);
}

TEST(MountCopyBound, TrustsASlotsMinimumMoreAsItsMeasurementsAccumulate) {
  CopyBound b;
  replies(b, 0, kEnough, 2'000);
  replies(b, kMiB, kEnough, 82'000);
  EXPECT_EQ(b.lead_ns(kMiB), 60'000);  // 3/4 of the 80 us a 1 MiB copy adds
  replies(b, kMiB, 256 - kEnough - 1, 90'000);
  EXPECT_EQ(b.lead_ns(kMiB), 60'000);
  b.record(kMiB, 90'000);              // the 256th
  EXPECT_EQ(b.lead_ns(kMiB), 70'000);  // 7/8
  replies(b, kMiB, 1024 - 256, 95'000);
  EXPECT_EQ(b.slot_samples(255), 1024u);
  EXPECT_EQ(b.lead_ns(kMiB), 80'000);  // all of it
  // A smaller size's slot with fewer measurements keeps its own, smaller share.
  replies(b, 512 * kKiB, kEnough, 42'000);
  EXPECT_EQ(b.lead_ns(512 * kKiB), 30'000);
  EXPECT_EQ(b.lead_ns(kMiB), 80'000);
}

TEST(MountCopyBound, AReplyUsesOnlySlotsWhoseSizesAreNoLarger) {
  CopyBound b;
  replies(b, 0, kEnough, 2'000);
  // Slot 255 holds (1 MiB - 4 KiB, 1 MiB]; its minimum came from a 1 MiB reply.
  replies(b, kMiB, kEnough, 202'000);
  replies(b, 512 * kKiB, kEnough, 102'000);  // slot 127: (508 KiB, 512 KiB]
  EXPECT_EQ(b.lead_ns(kMiB), 150'000);
  // 1 MiB less one byte is in slot 255 too, but could copy faster than the 1 MiB replies
  // measured there: only slots up to 254 count, of which 127 is the largest ready one.
  EXPECT_EQ(b.lead_ns(kMiB - 1), 75'000);
  EXPECT_EQ(b.lead_ns(kMiB - 4 * kKiB), 75'000);
  EXPECT_EQ(b.lead_ns(512 * kKiB), 75'000);
  EXPECT_EQ(b.lead_ns(512 * kKiB - 1), 0);  // only slot 0 and empty slots lie below
  EXPECT_EQ(b.lead_ns(4 * kKiB), 0);        // slot 0 is the data-less baseline
  EXPECT_EQ(b.lead_ns(4 * kKiB - 1), 0);
  EXPECT_EQ(b.lead_ns(2 * kMiB), 150'000);  // above kMaxBytes: the bound of kMaxBytes
}

TEST(MountCopyBound, NeverFallsBelowASmallerSizesBound) {
  CopyBound b;
  replies(b, 0, kEnough, 2'000);
  replies(b, 256 * kKiB, kEnough, 90'000);  // slot 63
  replies(b, kMiB, kEnough, 60'000);        // slot 255, oddly faster (a hot cache)
  // Slot 63's sizes are all <= 1 MiB, so its minimum bounds a 1 MiB copy as well.
  EXPECT_EQ(b.lead_ns(kMiB), 66'000);
  EXPECT_EQ(b.slot_min_ns(255), 60'000);
  EXPECT_EQ(b.slot_samples(63), kEnough);
}

TEST(MountCopyBound, IgnoresWhatItCannotUse) {
  CopyBound b;
  replies(b, 0, kEnough, 2'000);
  replies(b, kMiB, kEnough, 0);
  replies(b, kMiB, kEnough, -7);
  replies(b, kMiB + 1, kEnough, 5'000'000);
  EXPECT_EQ(b.lead_ns(kMiB), 0);
  EXPECT_EQ(b.lead_ns(2 * kMiB), 0);
  EXPECT_EQ(b.slot_samples(255), 0u);
}

}  // namespace
}  // namespace diskcond::mount
