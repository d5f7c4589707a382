#include "dmc/mount/partial_pages.h"

#include <gtest/gtest.h>

#include <vector>

namespace diskcond::mount {
namespace {

using Range = PartialPages::Range;
constexpr uint64_t kPage = PartialPages::kPageBytes;

TEST(MountPartialPages, ASmallFilesLastPageIsFreeOnceAfterItWasWritten) {
  PartialPages p;
  p.note_write(0, 10'000, 7);  // pages 0 and 1 whole (up to date), page 2 in part
  EXPECT_EQ(p.size(), 1u);
  EXPECT_TRUE(p.touches(2 * kPage, kPage));
  EXPECT_FALSE(p.touches(0, 2 * kPage));
  EXPECT_EQ(p.misses(2 * kPage, kPage, 7), std::vector<Range>{});
  // The kernel holds it up to date now: asked again, it was dropped and is read from the disk.
  EXPECT_EQ(p.misses(2 * kPage, kPage, 7), (std::vector<Range>{{2 * kPage, kPage}}));
}

TEST(MountPartialPages, AFileSmallerThanAPageIsOnePartPage) {
  PartialPages p;
  p.note_write(0, 100, 0);
  EXPECT_EQ(p.misses(0, kPage, 0), std::vector<Range>{});
}

TEST(MountPartialPages, WritesThatMeetInsideAPageLeaveItPartlyWritten) {
  PartialPages p;
  p.note_write(0, 5'000, 1);      // page 1 in part
  p.note_write(5'000, 3'192, 1);  // the rest of page 1: still in part (another request)
  EXPECT_EQ(p.size(), 1u);
  EXPECT_EQ(p.misses(kPage, kPage, 1), std::vector<Range>{});
}

TEST(MountPartialPages, AnUnalignedWriteLeavesBothEndsInPart) {
  PartialPages p;
  p.note_write(100, 3 * kPage, 0);  // pages 0 and 3 in part, 1 and 2 whole
  EXPECT_EQ(p.size(), 2u);
  // A read of everything: the disk serves the whole pages only.
  EXPECT_EQ(p.misses(0, 4 * kPage, 0), (std::vector<Range>{{kPage, 2 * kPage}}));
}

TEST(MountPartialPages, AWholePageWriteMakesAPageUpToDate) {
  PartialPages p;
  p.note_write(kPage + 10, 20, 0);
  p.note_write(0, 2 * kPage, 0);  // covers page 1 whole
  EXPECT_EQ(p.size(), 0u);
  EXPECT_EQ(p.misses(kPage, kPage, 0), (std::vector<Range>{{kPage, kPage}}));
}

TEST(MountPartialPages, ADropOfThePageCacheMakesEveryNotedPageADiskRead) {
  PartialPages p;
  p.note_write(0, 100, 4);
  p.note_write(3 * kPage, 100, 4);
  // echo 1 > drop_caches: the count is 5 at the read.
  EXPECT_EQ(p.misses(0, kPage, 5), (std::vector<Range>{{0, kPage}}));
  EXPECT_EQ(p.size(), 0u);
  // A write after the drop counts again.
  p.note_write(3 * kPage, 100, 5);
  EXPECT_EQ(p.misses(3 * kPage, kPage, 5), std::vector<Range>{});
}

TEST(MountPartialPages, AWriteNotedWithAnOlderCountIsNotFree) {
  PartialPages p;
  p.note_write(0, 100, 4);  // a count read before a drop that already happened
  EXPECT_EQ(p.misses(0, kPage, 5), (std::vector<Range>{{0, kPage}}));
}

TEST(MountPartialPages, ADirectWriteDropsThePagesItCovers) {
  PartialPages p;
  p.note_write(0, 100, 0);
  p.note_write(5 * kPage, 100, 0);
  p.note_direct_write(0, kPage);
  EXPECT_EQ(p.size(), 1u);
  EXPECT_EQ(p.misses(0, kPage, 0), (std::vector<Range>{{0, kPage}}));
  EXPECT_EQ(p.misses(5 * kPage, kPage, 0), std::vector<Range>{});
}

TEST(MountPartialPages, AReadAroundAFreePageIsChargedOnBothSides) {
  PartialPages p;
  p.note_write(2 * kPage + 1, 10, 0);
  EXPECT_EQ(p.misses(0, 5 * kPage, 0),
            (std::vector<Range>{{0, 2 * kPage}, {3 * kPage, 2 * kPage}}));
}

TEST(MountPartialPages, AReadOfPartOfAPageUsesItsOwnBounds) {
  PartialPages p;
  p.note_write(0, 100, 0);
  EXPECT_EQ(p.misses(10, 20, 0), std::vector<Range>{});
  p.note_write(0, 100, 0);
  EXPECT_EQ(p.misses(kPage - 10, 20, 0), (std::vector<Range>{{kPage, 10}}));
}

TEST(MountPartialPages, RemembersAtMostItsLimitAndForgetsTheHighest) {
  PartialPages p;
  for (uint64_t i = 0; i <= PartialPages::kMaxPages; ++i) p.note_write(i * kPage, 1, 0);
  EXPECT_EQ(p.size(), PartialPages::kMaxPages);
  const uint64_t last = PartialPages::kMaxPages * kPage;
  EXPECT_EQ(p.misses(last, kPage, 0), (std::vector<Range>{{last, kPage}}));
  EXPECT_EQ(p.misses(0, kPage, 0), std::vector<Range>{});
}

TEST(MountPartialPages, EmptyRequestsChangeNothing) {
  PartialPages p;
  p.note_write(0, 0, 0);
  EXPECT_EQ(p.size(), 0u);
  p.note_write(0, 1, 0);
  p.note_direct_write(0, 0);
  EXPECT_FALSE(p.touches(0, 0));
  EXPECT_EQ(p.misses(0, 0, 0), std::vector<Range>{});
  EXPECT_EQ(p.size(), 1u);
}

}  // namespace
}  // namespace diskcond::mount
