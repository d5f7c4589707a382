// The write-back policy, rule by rule, on a made-up timeline with exact completion times.
//
// Most tests use an SSD with no access time, one queue slot and 1 byte per ns for both
// directions, so a command of n bytes occupies the device for exactly n ns.
#include "core/writeback.h"

#include <gtest/gtest.h>

#include "core/model_test_support.h"
#include "core/units.h"

namespace diskcond {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr uint64_t kCapacity = 100 * kGiB;
constexpr uint64_t kBlock = 4096;
constexpr uint64_t kInodes = 50 * kGiB;  // where the tests put inode blocks
using File = Writeback::FileId;

using testing::one_byte_per_ns;

WritebackParams small_limits(uint64_t background, uint64_t limit) {
  WritebackParams p;
  p.dirty_background_bytes = background;
  p.dirty_bytes = limit;
  p.journal_address = 90 * kGiB;
  return p;
}

struct Fixture {
  explicit Fixture(const WritebackParams& params, const Profile& profile = one_byte_per_ns())
      : model(profile, kCapacity), wb(model, params) {}
  uint64_t device_writes() const { return model.counters().commands[int(Op::kWrite)]; }
  DiskModel model;
  Writeback wb;
};

TEST(WritebackParams, LinuxDefaults) {
  WritebackParams p;
  EXPECT_EQ(p.dirty_background_ratio, 10u);
  EXPECT_EQ(p.dirty_ratio, 20u);
  EXPECT_EQ(p.expire_ns, 30 * kS);
  EXPECT_EQ(p.writeback_interval_ns, 5 * kS);
  EXPECT_EQ(p.commit_interval_ns, 5 * kS);
  p.dirtyable_memory_bytes = 1000 * kMiB;
  EXPECT_EQ(p.background_threshold(), 100 * kMiB);
  EXPECT_EQ(p.dirty_limit(), 200 * kMiB);
  p.dirty_background_bytes = 7 * kMiB;  // bytes win over the ratio, as in Linux
  p.dirty_bytes = 9 * kMiB;
  EXPECT_EQ(p.background_threshold(), 7 * kMiB);
  EXPECT_EQ(p.dirty_limit(), 9 * kMiB);
}

TEST(Writeback, BufferedWriteIsAcknowledgedAtOnceAndReachesNoDevice) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  EXPECT_EQ(f.wb.write(1, 0, kBlock, kInodes, 1000), 1000);
  EXPECT_EQ(f.wb.write(1, kBlock, kBlock, kInodes, 2000), 2000);
  EXPECT_EQ(f.wb.write(1, 0, kBlock, kInodes, 3000), 3000);  // re-dirtying counts once
  EXPECT_EQ(f.wb.dirty_bytes(1), 2 * kBlock);
  EXPECT_EQ(f.wb.counters().dirty_bytes, 2 * kBlock);
  EXPECT_EQ(f.device_writes(), 0u);
}

TEST(Writeback, DataIsWrittenAtTheFirstWakeupAfterItExpires) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  f.wb.write(1, 0, kBlock, kInodes, 1 * kS);     // wake-ups at 6, 11, ... 31 s; expires at 31 s
  f.wb.write(2, kMiB, kBlock, kInodes, 3 * kS);  // expires at 33 s: written at the 36 s wake-up
  f.wb.advance(31 * kS - 1);
  EXPECT_EQ(f.wb.dirty_bytes(1), kBlock);
  // A read arriving with the 31 s wake-up waits for its writeback (one slot, 4096 ns).
  EXPECT_EQ(f.wb.submit(Command{Op::kRead, 2 * kMiB, kBlock, 31 * kS}), 31 * kS + 2 * 4096);
  EXPECT_EQ(f.wb.dirty_bytes(1), 0u);
  EXPECT_EQ(f.wb.dirty_bytes(2), kBlock);
  f.wb.advance(36 * kS - 1);
  EXPECT_EQ(f.wb.dirty_bytes(2), kBlock);
  f.wb.advance(36 * kS);
  EXPECT_EQ(f.wb.dirty_bytes(2), 0u);
}

TEST(Writeback, NoPeriodicWritebackWhenTheIntervalIsZero) {
  WritebackParams p = small_limits(kMiB, 2 * kMiB);
  p.writeback_interval_ns = 0;
  Fixture f(p);
  f.wb.write(1, 0, kBlock, kInodes, 1 * kS);
  f.wb.advance(1000 * kS);
  EXPECT_EQ(f.wb.dirty_bytes(1), kBlock);
}

TEST(Writeback, BackgroundWritebackStartsAboveTheThresholdWithTheOldestFile) {
  Fixture f(small_limits(3 * kBlock, 100 * kBlock));
  f.wb.write(1, 0 * kMiB, kBlock, kInodes, 1000);
  f.wb.write(2, 1 * kMiB, kBlock, kInodes, 2000);
  f.wb.write(3, 2 * kMiB, kBlock, kInodes, 3000);
  EXPECT_EQ(f.device_writes(), 0u);  // 3 blocks: at the threshold, not above
  EXPECT_EQ(f.wb.write(4, 3 * kMiB, kBlock, kInodes, 4000), 4000);  // not throttled
  EXPECT_EQ(f.device_writes(), 1u);
  EXPECT_EQ(f.wb.dirty_bytes(1), 0u);
  EXPECT_EQ(f.wb.dirty_bytes(2), kBlock);
  // The device is busy with it from 4000 to 8096.
  EXPECT_EQ(f.wb.submit(Command{Op::kRead, 5 * kMiB, kBlock, 4000}), 8096 + 4096);
}

TEST(Writeback, WritersAreThrottledAtTheDirtyLimitUntilWritebackMakesRoom) {
  Fixture f(small_limits(8192, 16384));
  EXPECT_EQ(f.wb.write(1, 0, 8192, kInodes, 0), 0);
  // Dirty 16384 is at the limit (fine) but above the background threshold: file 1 goes to the
  // device at 10 and completes at 8202.
  EXPECT_EQ(f.wb.write(2, kMiB, 8192, kInodes, 10), 10);
  EXPECT_EQ(f.device_writes(), 1u);
  // 8192 dirty + 8192 under writeback + 8192 more > 16384: the writer waits for file 1.
  EXPECT_EQ(f.wb.write(3, 2 * kMiB, 8192, kInodes, 20), 8202);
  const WritebackCounters c = f.wb.counters();
  EXPECT_EQ(c.throttled_writes, 1u);
  EXPECT_EQ(c.throttled_ns, 8182);
  // Then file 2 (the oldest) goes, behind file 1: 8202 + 8192.
  EXPECT_EQ(f.wb.dirty_bytes(2), 0u);
  EXPECT_EQ(f.wb.dirty_bytes(3), 8192u);
  EXPECT_EQ(f.wb.submit(Command{Op::kRead, 5 * kMiB, 4096, 30}), 8202 + 8192 + 4096);
}

TEST(Writeback, AWriteLargerThanWhatWritebackHasInFlightSendsMoreFirst) {
  Fixture f(small_limits(16384, 16384));
  f.wb.write(1, 0, 16384, kInodes, 0);  // at the background threshold: nothing sent
  EXPECT_EQ(f.device_writes(), 0u);
  // 16384 + 4096 > limit: file 1 is sent at 100 and the writer waits for it (100 + 16384).
  EXPECT_EQ(f.wb.write(2, kMiB, 4096, kInodes, 100), 100 + 16384);
}

TEST(Writeback, FsyncWritesItsFileCommitsTheSharedJournalAndFlushes) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  f.wb.write(1, 0, kBlock, kInodes, 0);
  f.wb.write(2, kMiB, kBlock, kInodes + kBlock, 10);
  // File 1's block (100 .. 4196), then the commit of both inode blocks: descriptor + 2 + commit
  // block = 16384 bytes (4196 .. 20580), then the flush.
  EXPECT_EQ(f.wb.fsync(1, 100), 20580);
  EXPECT_EQ(f.wb.dirty_bytes(1), 0u);
  EXPECT_EQ(f.wb.dirty_bytes(2), kBlock);  // another file's dirty data is not waited for
  EXPECT_EQ(f.wb.counters().commits, 1u);
  // Nothing dirty and nothing in the journal for it: only a flush, done at once.
  EXPECT_EQ(f.wb.fsync(1, 30000), 30000);
  EXPECT_EQ(f.wb.counters().commits, 1u);
}

// Issue 12: an fsync on an SSD paid one access time for data, journal and commit block together
// (all in flight at once), where ext4 pays three: the journal's blocks go out once the data has
// completed (ext4_sync_file waits for it before the commit), the commit block only once those
// are durable (REQ_PREFLUSH), then a flush makes it durable (REQ_FUA).
TEST(Writeback, TheCommitBlockWaitsForTheDataAndTheJournalToBeDurable) {
  Profile ssd = one_byte_per_ns();
  ssd.access_time_ns = 1000;
  ssd.queue_depth = 32;
  Fixture f(small_limits(kMiB, 2 * kMiB), ssd);
  f.wb.write(1, 0, kBlock, kInodes, 0);
  // At 100: the data block (access 100 .. 1100, transfer .. 5196); once it is done (ext4_sync_file
  // waits for the data before the commit) the descriptor + inode block (access 5196 .. 6196,
  // transfer .. 14388); the flush at 14388; the commit block (access 14388 .. 15388, transfer ..
  // 19484); the flush.
  EXPECT_EQ(f.wb.fsync(1, 100), 19484);
  EXPECT_EQ(f.device_writes(), 3u);
  EXPECT_EQ(f.model.counters().commands[int(Op::kFlush)], 2u);
  // A read arriving while the journal is still going out is not held back by the commit block
  // that follows it: it takes its place in the order at its own arrival.
  Fixture g(small_limits(kMiB, 2 * kMiB), ssd);
  g.wb.write(1, 0, kBlock, kInodes, 0);
  g.wb.fsync(1, 100);
  EXPECT_EQ(g.wb.submit(Command{Op::kRead, kGiB, 4096, 200}), 19484 + 4096);
}

TEST(Writeback, FdatasyncSkipsTheCommitWhenOnlyTimestampsChanged) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  f.wb.write(1, 0, kBlock, kInodes, 0, /*resizes=*/false);  // an overwrite: mtime only
  // Its block (100 .. 4196), no commit, the flush.
  EXPECT_EQ(f.wb.fsync(1, 100, /*datasync=*/true), 4196);
  EXPECT_EQ(f.wb.counters().commits, 0u);
  // fsync commits the timestamps: descriptor + 1 block + commit block.
  EXPECT_EQ(f.wb.fsync(1, 5000, /*datasync=*/false), 5000 + 3 * 4096);
  EXPECT_EQ(f.wb.counters().commits, 1u);
  // A write that changes the size needs the commit for fdatasync too.
  f.wb.write(1, kBlock, kBlock, kInodes, 20000, /*resizes=*/true);
  EXPECT_EQ(f.wb.fsync(1, 20000, /*datasync=*/true), 20000 + 4096 + 3 * 4096);
  EXPECT_EQ(f.wb.counters().commits, 2u);
}

TEST(Writeback, DirtyDataIsTrackedAndWrittenInWholePages) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  // 100 bytes across the boundary of pages 0 and 1 (a SQLite WAL frame of 4120 bytes does this
  // at every commit): both pages are dirty; 10 more bytes in page 1 change nothing.
  f.wb.write(1, 4090, 100, kInodes, 0, /*resizes=*/false);
  EXPECT_EQ(f.wb.dirty_bytes(1), 8192u);
  f.wb.write(1, 5000, 10, kInodes, 10, /*resizes=*/false);
  EXPECT_EQ(f.wb.dirty_bytes(1), 8192u);
  EXPECT_EQ(f.wb.counters().dirty_bytes, 8192u);
  // fdatasync (timestamps only: no commit) writes the two pages as one command (100 .. 8292),
  // then the flush.
  EXPECT_EQ(f.wb.fsync(1, 100, /*datasync=*/true), 100 + 8192);
  EXPECT_EQ(f.device_writes(), 1u);
  EXPECT_EQ(f.wb.counters().written_back_bytes, 8192u);
}

TEST(Writeback, DirectoryFsyncCommitsTheRunningTransactionAndSendsNoFlushOfItsOwn) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  const File dir = 9;
  // A file created in the directory: its inode's change is in the running transaction, which
  // the directory's fsync commits although the entry is the file's (ext4_force_commit):
  // descriptor + 1 block + commit block, the commit's two flushes.
  f.wb.journal(2, kInodes, 50);
  EXPECT_EQ(f.wb.fsync_directory(dir, 100), 100 + 3 * 4096);
  EXPECT_EQ(f.wb.counters().commits, 1u);
  EXPECT_EQ(f.model.counters().commands[int(Op::kFlush)], 2u);
  // Nothing left to commit: done at once, no flush.
  EXPECT_EQ(f.wb.fsync_directory(dir, 20000), 20000);
  EXPECT_EQ(f.model.counters().commands[int(Op::kFlush)], 2u);
  EXPECT_EQ(f.device_writes(), 2u);
  // A regular file's fsync with nothing to write or commit still flushes (ext4's needs_barrier).
  EXPECT_EQ(f.wb.fsync(3, 30000), 30000);
  EXPECT_EQ(f.model.counters().commands[int(Op::kFlush)], 3u);
}

TEST(Writeback, FsyncDoesNotCommitATransactionThatDoesNotHoldTheFile) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  EXPECT_EQ(f.wb.journal(2, kInodes, 50), 50);
  EXPECT_EQ(f.wb.fsync(1, 100), 100);
  EXPECT_EQ(f.device_writes(), 0u);
  EXPECT_EQ(f.wb.counters().commits, 0u);
  // File 2's fsync commits it: descriptor + 1 block + commit block.
  EXPECT_EQ(f.wb.fsync(2, 200), 200 + 3 * 4096);
}

TEST(Writeback, JournalCommitsFiveSecondsAfterItsFirstEntry) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  EXPECT_EQ(f.wb.journal(7, kInodes, 1 * kS), 1 * kS);  // acknowledged at once
  EXPECT_EQ(f.wb.journal(8, kInodes + kBlock, 2 * kS), 2 * kS);
  EXPECT_EQ(f.wb.journal(9, kInodes, 3 * kS), 3 * kS);  // same block as the first: counted once
  f.wb.advance(6 * kS - 1);
  EXPECT_EQ(f.device_writes(), 0u);
  // At 6 s: descriptor + 2 blocks, a flush, the commit block after them at the journal, a flush;
  // a read arriving then waits behind them.
  EXPECT_EQ(f.wb.submit(Command{Op::kRead, 0, 4096, 6 * kS}), 6 * kS + 4 * 4096 + 4096);
  EXPECT_EQ(f.wb.counters().commits, 1u);
  EXPECT_EQ(f.model.counters().commands[int(Op::kFlush)], 2u);
  // A new transaction starts with the next entry and commits 5 s after it.
  f.wb.journal(7, kInodes, 7 * kS);
  f.wb.advance(12 * kS - 1);
  EXPECT_EQ(f.wb.counters().commits, 1u);
  f.wb.advance(12 * kS);
  EXPECT_EQ(f.wb.counters().commits, 2u);
}

TEST(Writeback, CommittedBlocksAreCheckpointedHomeByWriteback) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  f.wb.journal(7, kInodes, 1 * kS);
  f.wb.advance(6 * kS);  // committed: the home block is dirty since 6 s, wake-ups 11, 16, ...
  EXPECT_EQ(f.wb.dirty_bytes(Writeback::kMetadataFile), kBlock);
  f.wb.advance(36 * kS - 1);
  EXPECT_EQ(f.wb.dirty_bytes(Writeback::kMetadataFile), kBlock);
  // At 36 s it goes to its home address: a read there waits for it.
  EXPECT_EQ(f.wb.submit(Command{Op::kRead, kInodes, 4096, 36 * kS}), 36 * kS + 2 * 4096);
  EXPECT_EQ(f.wb.dirty_bytes(Writeback::kMetadataFile), 0u);
}

TEST(Writeback, WritebackMergesAdjacentRangesOfDifferentFiles) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  f.wb.write(1, 0, kBlock, kInodes, 0);
  f.wb.write(2, kBlock, kBlock, kInodes, 0);
  f.wb.write(1, 3 * kBlock, kBlock, kInodes, 0);
  f.wb.sync_all(10);
  // Data: [0, 8192) in one command and [12288, 16384); the journal's blocks and its commit
  // block; the checkpoint.
  EXPECT_EQ(f.device_writes(), 5u);
  EXPECT_EQ(f.wb.counters().dirty_bytes, 0u);
}

TEST(Writeback, WritebackGoesInDeviceAddressOrder) {
  Profile hdd = one_byte_per_ns();
  hdd.type = DiskType::kHDD;
  hdd.access_time_ns = 9'000'000;
  WritebackParams p = small_limits(kGiB, 2 * kGiB);
  p.journal_address = 0;
  Fixture f(p, hdd);
  f.wb.write(1, 300 * kMiB, kBlock, 0, 0);  // dirtied in the order 300, 100, 200 MiB
  f.wb.write(2, 100 * kMiB, kBlock, 0, 0);
  f.wb.write(3, 200 * kMiB, kBlock, 0, 0);
  // All expire at the 30 s wake-up; a read of 400 MiB then comes after them.
  const int64_t got = f.wb.submit(Command{Op::kRead, 400 * kMiB, kBlock, 30 * kS});
  auto replay = [&](std::vector<uint64_t> order) {
    DiskModel m(hdd, kCapacity);
    m.submit(Command{Op::kWrite, 0, 3 * kBlock, 5 * kS});  // the journal commit at 5 s
    m.submit(Command{Op::kFlush, 0, 0, 5 * kS});
    for (uint64_t a : order) m.submit(Command{Op::kWrite, a, kBlock, 30 * kS});
    return m.submit(Command{Op::kRead, 400 * kMiB, kBlock, 30 * kS});
  };
  EXPECT_EQ(got, replay({100 * kMiB, 200 * kMiB, 300 * kMiB}));
  EXPECT_NE(got, replay({300 * kMiB, 100 * kMiB, 200 * kMiB}));
}

TEST(Writeback, SyncWritesEverythingAndCommits) {
  Fixture f(small_limits(kMiB, 2 * kMiB));
  f.wb.write(1, 0, kBlock, kInodes, 0);
  f.wb.write(2, kMiB, kBlock, kInodes, 0);
  // Data 2 x 4096, journal 3 blocks, checkpoint 1 block, from 10.
  EXPECT_EQ(f.wb.sync_all(10), 10 + 2 * 4096 + 3 * 4096 + 4096);
  EXPECT_EQ(f.wb.counters().dirty_bytes, 0u);
}

}  // namespace
}  // namespace diskcond
