// The layout rules with exact addresses: ext4's group geometry, allocation next to the previous
// allocation of the same group, FIEMAP extents, hashed fallback, and the inode-table cache.
#include "core/layout.h"

#include <gtest/gtest.h>

#include "core/units.h"

namespace diskcond {
namespace {

constexpr uint64_t kGroup = 128 * kMiB;

// 64 groups of 128 MiB, 8192 inodes each, 16 groups per flex group.
LayoutParams small_ext4() {
  LayoutParams p;
  p.capacity = 64 * kGroup;
  return p;
}

TEST(LayoutParams, InodesPerGroupFromTheInodeCount) {
  LayoutParams p = LayoutParams::like_ext4(64 * kGroup, 64 * 4096);
  EXPECT_EQ(p.inodes_per_group, 4096u);
  EXPECT_EQ(p.group_bytes, kGroup);
  EXPECT_EQ(LayoutParams::like_ext4(kMiB, 0).inodes_per_group, 8192u);  // unknown: ext4's default
}

TEST(Layout, InodeTablesOfAFlexGroupSitTogetherAtItsStart) {
  Layout layout(small_ext4());
  const uint64_t bitmaps = 2 * 16 * 4096;
  EXPECT_EQ(layout.inode_address(1), bitmaps);
  EXPECT_EQ(layout.inode_address(2), bitmaps + 256);
  // Group 1's table follows group 0's (8192 inodes of 256 bytes = 2 MiB), still in group 0.
  EXPECT_EQ(layout.inode_address(8193), bitmaps + 2 * kMiB);
  // Group 16 starts the next flex group.
  EXPECT_EQ(layout.inode_address(16 * 8192 + 1), 16 * kGroup + bitmaps);
}

TEST(Layout, GroupDataStartsAfterTheFlexGroupsMetadata) {
  Layout layout(small_ext4());
  EXPECT_EQ(layout.group_data_address(1), 2 * 16 * 4096 + 16 * 2 * kMiB);
  EXPECT_EQ(layout.group_data_address(8193), kGroup);  // group 1 holds no metadata
  EXPECT_EQ(layout.group_data_address(3 * 8192 + 5), 3 * kGroup);
}

TEST(Layout, AllocationStateSitsInTheFlexGroupsBitmapsAndGroupZerosDescriptorTable) {
  Layout layout(small_ext4());
  // Block bitmaps: one block per group at the start of its flex group's leader.
  EXPECT_EQ(layout.block_bitmap_address(5 * kMiB), 0u);               // group 0
  EXPECT_EQ(layout.block_bitmap_address(3 * kGroup + 7), 3 * 4096u);  // group 3
  EXPECT_EQ(layout.block_bitmap_address(17 * kGroup), 16 * kGroup + 4096);
  // 64 groups of 64-byte descriptors fill one block, the last of group 0.
  EXPECT_EQ(layout.group_descriptor_address(0), kGroup - 4096);
  EXPECT_EQ(layout.group_descriptor_address(63 * kGroup), kGroup - 4096);
  // 65 groups need two blocks; group 64 is described in the second.
  LayoutParams p = small_ext4();
  p.capacity = 65 * kGroup;
  Layout bigger(p);
  EXPECT_EQ(bigger.group_descriptor_address(kGroup), kGroup - 2 * 4096);
  EXPECT_EQ(bigger.group_descriptor_address(64 * kGroup), kGroup - 4096);
}

TEST(Layout, FilesOfOneGroupAreAllocatedOneAfterTheOther) {
  Layout layout(small_ext4());
  const uint64_t ino_a = 8192 + 10, ino_b = 8192 + 11;  // group 1
  layout.set_extents(1, ino_a, {});
  layout.set_extents(2, ino_b, {});
  EXPECT_EQ(layout.map(1, 0, 0, 10000, true), (std::vector<Piece>{{kGroup, 10000}}));
  // Whole blocks: 10000 bytes took 3 blocks, so b starts 12 KiB further.
  EXPECT_EQ(layout.map(2, 0, 0, 4096, true), (std::vector<Piece>{{kGroup + 12288, 4096}}));
  EXPECT_EQ(layout.counters().allocated_bytes, 16384u);
}

TEST(Layout, AFileThatGrowsAloneStaysInOneExtent) {
  Layout layout(small_ext4());
  layout.set_extents(1, 8192 + 1, {});
  for (uint64_t off = 0; off < kMiB; off += 64 * kKiB) layout.map(1, 0, off, 64 * kKiB, true);
  EXPECT_EQ(layout.map(1, 0, 0, kMiB, false), (std::vector<Piece>{{kGroup, kMiB}}));
}

TEST(Layout, AnAppendContinuesItsExtentEvenPastAnotherFile) {
  Layout layout(small_ext4());
  layout.set_extents(1, 8192 + 1, {});
  layout.set_extents(2, 8192 + 2, {});
  layout.map(1, 0, 0, 4096, true);
  layout.map(2, 0, 0, 4096, true);  // right behind file 1
  layout.map(1, 0, 4096, 4096, true);
  // Free space is not tracked: file 1 keeps its goal and shares file 2's block.
  EXPECT_EQ(layout.map(1, 0, 0, 8192, false), (std::vector<Piece>{{kGroup, 8192}}));
  EXPECT_EQ(layout.map(2, 0, 0, 4096, false), (std::vector<Piece>{{kGroup + 4096, 4096}}));
  // The cursor is past both: the next file starts after them.
  layout.set_extents(3, 8192 + 3, {});
  EXPECT_EQ(layout.map(3, 0, 0, 4096, true), (std::vector<Piece>{{kGroup + 8192, 4096}}));
}

TEST(Layout, ASparseFileWrittenAtRandomKeepsItsOffsetsDistances) {
  Layout layout(small_ext4());
  layout.set_extents(1, 8192 + 1, {});
  layout.map(1, 0, 10 * kMiB, 4096, true);  // first block: at the cursor
  layout.map(1, 0, 12 * kMiB, 4096, true);  // 2 MiB further in the file: 2 MiB further on disk
  layout.map(1, 0, 9 * kMiB, 4096, true);   // before the first: 1 MiB before it
  EXPECT_EQ(layout.map(1, 0, 12 * kMiB, 4096, false),
            (std::vector<Piece>{{kGroup + 2 * kMiB, 4096}}));
  EXPECT_EQ(layout.map(1, 0, 9 * kMiB, 4096, false), (std::vector<Piece>{{kGroup - kMiB, 4096}}));
}

TEST(Layout, RewritingPlacedBytesKeepsTheirPlace) {
  Layout layout(small_ext4());
  layout.set_extents(1, 8192 + 1, {});
  uint64_t allocated = 0;
  layout.map(1, 0, 0, 8192, true, &allocated);
  EXPECT_EQ(allocated, 8192u);
  EXPECT_EQ(layout.map(1, 0, 100, 200, true, &allocated),
            (std::vector<Piece>{{kGroup + 100, 200}}));
  EXPECT_EQ(allocated, 0u);
  EXPECT_EQ(layout.counters().allocated_bytes, 8192u);
}

TEST(Layout, FiemapExtentsAreUsedAndMergedWhenContiguous) {
  Layout layout(small_ext4());
  layout.set_extents(7, 5,
                     {{0, 10 * kMiB, kMiB}, {kMiB, 11 * kMiB, kMiB}, {2 * kMiB, 40 * kMiB, kMiB}});
  EXPECT_EQ(layout.map(7, 0, kMiB / 2, 2 * kMiB, false),
            (std::vector<Piece>{{10 * kMiB + kMiB / 2, kMiB + kMiB / 2}, {40 * kMiB, kMiB / 2}}));
  EXPECT_EQ(layout.counters().files_mapped, 1u);
}

TEST(Layout, AFileGrowingPastItsExtentsContinuesThem) {
  Layout layout(small_ext4());
  layout.set_extents(7, 8192 + 3, {{0, 50 * kMiB, 4096}});
  EXPECT_EQ(layout.map(7, 0, 0, 8192, true), (std::vector<Piece>{{50 * kMiB, 8192}}));
}

TEST(Layout, UnplacedReadsAreChargedAtTheHashedAddress) {
  Layout layout(small_ext4());
  layout.set_extents(7, 5, {{0, 10 * kMiB, 4096}});
  EXPECT_EQ(layout.map(7, 30 * kMiB, 0, 8192, false),
            (std::vector<Piece>{{10 * kMiB, 4096}, {30 * kMiB + 4096, 4096}}));
  // A file never placed: all of it at the hashed address.
  EXPECT_EQ(layout.map(8, 30 * kMiB, 100, 50, false), (std::vector<Piece>{{30 * kMiB + 100, 50}}));
  EXPECT_FALSE(layout.placed(8));
}

TEST(Layout, HashedFilesWrapAroundTheDevice) {
  Layout layout(small_ext4());
  layout.set_hashed(3, 64 * kGroup - 4096);
  EXPECT_EQ(layout.map(3, 0, 8192, 4096, true), (std::vector<Piece>{{4096, 4096}}));
  EXPECT_EQ(layout.counters().allocated_bytes, 0u);
  EXPECT_EQ(layout.counters().files_hashed, 1u);
}

TEST(Layout, AFileOpenedDirectIsOneLinearRegionFromThenOn) {
  Layout layout(small_ext4());
  layout.set_extents(1, 8192 + 1, {{0, 50 * kMiB, 4096}});
  layout.set_linear(1, 7 * kGroup);
  EXPECT_EQ(layout.map(1, 0, 4096, 8192, true), (std::vector<Piece>{{7 * kGroup + 4096, 8192}}));
  layout.set_linear(1, 9 * kGroup);  // already linear: stays where it is
  EXPECT_EQ(layout.map(1, 0, 0, 4096, false), (std::vector<Piece>{{7 * kGroup, 4096}}));
  EXPECT_EQ(layout.counters().files_linear, 1u);
  EXPECT_EQ(layout.counters().allocated_bytes, 0u);
}

TEST(Layout, DroppedFilesAreAskedAgain) {
  Layout layout(small_ext4());
  layout.set_extents(1, 5, {});
  EXPECT_TRUE(layout.placed(1));
  layout.drop(1);
  EXPECT_FALSE(layout.placed(1));
}

TEST(Layout, AnInodeTableClusterIsReadOnceWhileTheKernelHoldsAnInodeInIt) {
  Layout layout(small_ext4());
  const uint64_t bitmaps = 2 * 16 * 4096;
  // The table begins after the bitmaps (128 KiB); a cluster is the 128 KiB-aligned piece of the
  // device holding the inode, so inodes 1..512 share one.
  EXPECT_EQ(layout.hold_inode(1), (Piece{128 * kKiB, 128 * kKiB}));
  EXPECT_EQ(layout.hold_inode(2), (Piece{}));
  EXPECT_EQ(bitmaps + 999 * 256, 386816u);  // inode 1000, in the third cluster
  EXPECT_EQ(layout.hold_inode(1000), (Piece{256 * kKiB, 128 * kKiB}));
  layout.release_inode(1);
  EXPECT_EQ(layout.hold_inode(3), (Piece{}));  // inode 2 still holds the cluster
  layout.release_inode(2);
  layout.release_inode(3);
  EXPECT_EQ(layout.hold_inode(2), (Piece{128 * kKiB, 128 * kKiB}));  // all dropped: read again
  EXPECT_EQ(layout.counters().metadata_reads, 3u);
}

// A request that creates an inode writes its table block without reading it: no read, not
// counted (status's metadata_reads is what the model was charged), and its cluster is in memory.
TEST(Layout, ACreatedInodeCostsNoReadAndHoldsItsCluster) {
  Layout layout(small_ext4());
  EXPECT_EQ(layout.hold_inode(1000, /*created=*/true), (Piece{}));
  EXPECT_EQ(layout.hold_inode(1001), (Piece{}));  // the same cluster, in memory
  EXPECT_EQ(layout.counters().metadata_reads, 0u);
  layout.release_inode(1000);
  layout.release_inode(1001);
  EXPECT_EQ(layout.hold_inode(1001), (Piece{256 * kKiB, 128 * kKiB}));  // dropped: read
  EXPECT_EQ(layout.counters().metadata_reads, 1u);
}

TEST(Layout, DirectoriesWithoutExtentsAreAllocatedOneAfterTheOtherInTheirFlexGroup) {
  Layout layout(small_ext4());
  const uint64_t data = 2 * 16 * 4096 + 16 * 2 * kMiB;  // the leader group's data area
  // Directories of groups 0 and 3 (one flex group) go to its leader's directory cursor, one
  // after the other, each as many blocks as it is long.
  EXPECT_EQ(layout.directory_pieces(2, nullptr, 4096), (std::vector<Piece>{{data, 4096}}));
  EXPECT_EQ(layout.directory_pieces(3 * 8192 + 7, nullptr, 12288),
            (std::vector<Piece>{{data + 4096, 12288}}));
  EXPECT_EQ(layout.directory_pieces(40, nullptr, 100), (std::vector<Piece>{{data + 16384, 100}}));
  // A directory keeps its address; the next flex group has its own cursor.
  EXPECT_EQ(layout.directory_pieces(2, nullptr, 8192), (std::vector<Piece>{{data, 8192}}));
  EXPECT_EQ(layout.directory_pieces(16 * 8192 + 1, nullptr, 4096),
            (std::vector<Piece>{{16 * kGroup + data, 4096}}));
  EXPECT_EQ(layout.counters().directory_reads, 5u);
}

TEST(Layout, DirectoriesWithExtentsAreReadWhereTheySay) {
  Layout layout(small_ext4());
  // Two extents out of order, contiguous on the device: one piece, cut at `bytes`.
  const std::vector<Extent> two{{4096, 9 * kMiB + 4096, 4096}, {0, 9 * kMiB, 4096}};
  EXPECT_EQ(layout.directory_pieces(5, &two, 8192), (std::vector<Piece>{{9 * kMiB, 8192}}));
  EXPECT_EQ(layout.directory_pieces(5, &two, 6000), (std::vector<Piece>{{9 * kMiB, 6000}}));
  // Bytes no extent covers (a gap, the tail) are read at the directory's own address.
  const uint64_t data = 2 * 16 * 4096 + 16 * 2 * kMiB;
  const std::vector<Extent> gap{{8192, 20 * kMiB, 4096}};
  EXPECT_EQ(layout.directory_pieces(6, &gap, 16384),
            (std::vector<Piece>{{data, 8192}, {20 * kMiB, 4096}, {data + 12288, 4096}}));
  const std::vector<Extent> none;
  EXPECT_EQ(layout.directory_pieces(6, &none, 4096), (std::vector<Piece>{{data, 4096}}));
}

}  // namespace
}  // namespace diskcond
