// The undo log driven by the write-back model on a made-up timeline: when pre-images stop being
// needed, with exact times. The device: no access time, one queue slot, 1 byte per ns, so a
// command of n bytes takes n ns.
#include "core/undo_log.h"

#include <gtest/gtest.h>

#include "core/crash_plan.h"
#include "core/model_test_support.h"
#include "core/units.h"

namespace diskcond {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr uint64_t kCapacity = 100 * kGiB;
constexpr uint64_t kFile = 7;
constexpr uint64_t kInode = 50 * kGiB;

using testing::one_byte_per_ns;

struct Fixture {
  Fixture() : model(one_byte_per_ns(), kCapacity), wb(model, params()) { wb.set_listener(&log); }
  static WritebackParams params() {
    WritebackParams p;
    p.dirty_background_bytes = 1 * kGiB;
    p.dirty_bytes = 2 * kGiB;
    p.journal_address = 90 * kGiB;
    return p;
  }
  // A buffered write of `bytes` at `offset` of kFile (its device address = offset), replacing
  // `old` in a file of `size` bytes.
  void write(uint64_t offset, const std::string& bytes, uint64_t size, const std::string& old,
             int64_t at) {
    const uint64_t token = log.record_write(kFile, offset, bytes.size(), size, old);
    wb.write(kFile, offset, bytes.size(), kInode, at, true, token);
  }
  DiskModel model;
  UndoLog log;
  Writeback wb;
};

TEST(UndoLog, FsyncMakesTheWriteDurableAtItsCompletion) {
  Fixture f;
  f.write(0, std::string(4096, 'A'), 0, "", 0);
  EXPECT_EQ(f.log.files(), 1u);
  // fsync at 1 s: the 4096 bytes take 4096 ns; the commit and the flush follow.
  f.wb.fsync(kFile, 1 * kS);
  EXPECT_EQ(f.log.snapshot(1 * kS + 4095).files.size(), 1u);
  EXPECT_TRUE(f.log.snapshot(1 * kS + 4096).files.empty());
  EXPECT_TRUE(f.log.prune(1 * kS + 4095).files.empty());
  EXPECT_EQ(f.log.prune(1 * kS + 4096).files, std::vector<uint64_t>{kFile});
  EXPECT_EQ(f.log.files(), 0u);
}

TEST(UndoLog, PeriodicWritebackMakesItDurableAfterTheExpiry) {
  Fixture f;
  f.write(0, std::string(4096, 'A'), 0, "", 1 * kS);
  // Dirtied at 1 s: expired at 31 s (wake-ups 6, 11, ... 31); written in 4096 ns.
  f.wb.advance(31 * kS);
  EXPECT_EQ(f.log.snapshot(31 * kS + 4095).files.size(), 1u);
  EXPECT_TRUE(f.log.snapshot(31 * kS + 4096).files.empty());
}

TEST(UndoLog, KeepsTheBytesBeforeTheEpochOnce) {
  Fixture f;
  f.write(0, std::string(4096, 'A'), 0, "", 0);
  f.wb.fsync(kFile, 1);
  f.log.prune(kS);
  f.write(0, std::string(100, 'B'), 4096, std::string(100, 'A'), 2 * kS);
  f.write(50, std::string(100, 'C'), 4096, std::string(50, 'B') + std::string(50, 'A'), 2 * kS);
  // Saved: 100 A's for [0, 100) and 50 A's for [100, 150), not the B's the second replaced.
  EXPECT_EQ(f.log.bytes(), 150u);
  const UndoSnapshot s = f.log.snapshot(3 * kS);
  ASSERT_EQ(s.files.at(kFile).size(), 1u);
  const UndoEpoch& e = s.files.at(kFile)[0];
  EXPECT_EQ(e.base_size, 4096u);
  EXPECT_EQ(e.written, (std::map<uint64_t, uint64_t>{{0, 150}}));
  const CrashPlan plan = plan_crash(s, Tear::kNone, 1);
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_EQ(plan.files[0].size, 4096u);
  EXPECT_EQ(plan.files[0].lost_bytes, 150u);
  std::string restored;
  for (const RestorePiece& p : plan.files[0].pieces) restored += p.bytes;
  EXPECT_EQ(restored, std::string(150, 'A'));
}

TEST(UndoLog, AWriteAfterTheSendStartsTheNextEpoch) {
  Fixture f;
  f.write(0, std::string(8192, 'A'), 0, "", 0);
  f.wb.fsync(kFile, 1 * kS);  // sent at 1 s, durable at 1 s + 8192 ns
  f.write(0, std::string(4096, 'B'), 8192, std::string(4096, 'A'), 1 * kS + 100);
  const UndoSnapshot during = f.log.snapshot(1 * kS + 8000);
  ASSERT_EQ(during.files.at(kFile).size(), 2u);
  EXPECT_EQ(during.files.at(kFile)[0].base_size, 0u);
  EXPECT_EQ(during.files.at(kFile)[1].base_size, 8192u);
  // A crash then: back to the empty file.
  EXPECT_EQ(plan_crash(during, Tear::kNone, 1).files[0].size, 0u);
  // Once the first send completed, only the second epoch remains: 4096 A's come back.
  const UndoSnapshot after = f.log.snapshot(1 * kS + 8192);
  ASSERT_EQ(after.files.at(kFile).size(), 1u);
  const CrashPlan plan = plan_crash(after, Tear::kNone, 1);
  EXPECT_EQ(plan.files[0].size, 8192u);
  ASSERT_EQ(plan.files[0].pieces.size(), 1u);
  EXPECT_EQ(plan.files[0].pieces[0].bytes, std::string(4096, 'A'));
  EXPECT_EQ(f.log.bytes(), 4096u);
  f.log.prune(1 * kS + 8192);
  EXPECT_EQ(f.log.bytes(), 4096u);
}

TEST(UndoLog, ZerosReplacedAreNotKept) {
  Fixture f;
  f.write(0, std::string(4096, 'B'), 8192, std::string(4096, '\0'), 0);
  EXPECT_EQ(f.log.bytes(), 0u);
  const CrashPlan plan = plan_crash(f.log.snapshot(kS), Tear::kNone, 1);
  ASSERT_EQ(plan.files[0].pieces.size(), 1u);
  EXPECT_EQ(plan.files[0].pieces[0].bytes, std::string(4096, '\0'));
  EXPECT_EQ(plan.files[0].size, 8192u);
}

TEST(UndoLog, KeepDropsTheFile) {
  Fixture f;
  f.write(0, std::string(10, 'B'), 10, std::string(10, 'A'), 0);
  f.log.record_write(kFile, 0, 5, 10, "BBBBB");  // pending: never charged
  EXPECT_EQ(f.log.bytes(), 15u);
  f.log.keep(kFile);
  EXPECT_EQ(f.log.bytes(), 0u);
  EXPECT_TRUE(f.log.snapshot(0).files.empty());
}

TEST(UndoLog, APendingWriteIsUndoneToo) {
  Fixture f;
  f.log.record_write(kFile, 2, 3, 10, "xyz");
  const CrashPlan plan = plan_crash(f.log.snapshot(kS), Tear::kNone, 1);
  ASSERT_EQ(plan.files.size(), 1u);
  EXPECT_EQ(plan.files[0].size, 10u);
  ASSERT_EQ(plan.files[0].pieces.size(), 1u);
  EXPECT_EQ(plan.files[0].pieces[0].offset, 2u);
  EXPECT_EQ(plan.files[0].pieces[0].bytes, "xyz");
}

TEST(UndoLog, ACreationIsDurableAtItsCommit) {
  Fixture f;
  const uint64_t token = f.log.record_change(/*entry=*/42);
  f.wb.journal(kFile, kInode, 0, token);
  // The commit at 5 s: descriptor, one block, commit block = 12288 bytes, then the flush.
  f.wb.advance(5 * kS);
  EXPECT_EQ(f.log.snapshot(5 * kS + 12287).changes.size(), 1u);
  EXPECT_TRUE(f.log.snapshot(5 * kS + 12288).changes.empty());
  EXPECT_EQ(plan_crash(f.log.snapshot(5 * kS), Tear::kNone, 1).undo_changes,
            std::vector<uint64_t>{42});
  EXPECT_EQ(f.log.prune(5 * kS + 12288).entries, std::vector<uint64_t>{42});
  EXPECT_TRUE(f.log.snapshot(0).changes.empty());
}

TEST(UndoLog, AnFsyncCommitsTheCreationWithItsData) {
  Fixture f;
  const uint64_t token = f.log.record_change(9);
  f.wb.journal(kFile, kInode, 0, token);
  f.write(0, std::string(4096, 'A'), 0, "", 0);
  // fsync at 1 s: data 4096 ns, then the commit (12288 bytes), durable at 1 s + 16384 ns.
  f.wb.fsync(kFile, 1 * kS);
  EXPECT_EQ(f.log.snapshot(1 * kS + 16383).changes.size(), 1u);
  EXPECT_TRUE(f.log.snapshot(1 * kS + 16384).changes.empty());
  EXPECT_TRUE(f.log.snapshot(1 * kS + 16384).files.empty());
}

}  // namespace
}  // namespace diskcond
