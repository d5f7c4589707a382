// What a crash restores from hand-made snapshots, with and without tearing.
#include "core/crash_plan.h"

#include <gtest/gtest.h>

namespace diskcond {
namespace {

constexpr uint64_t kFile = 3;

UndoEpoch epoch(uint64_t seq, uint64_t base_size, uint64_t from, uint64_t to,
                const std::string& before = "") {
  UndoEpoch e;
  e.seq = seq;
  e.base_size = base_size;
  e.written.emplace(from, to);
  if (!before.empty()) e.before.emplace(from, before);
  return e;
}

// The file's content after applying `r` to `now` (pieces in order, then the size).
std::string applied(std::string now, const FileRestore& r) {
  for (const RestorePiece& p : r.pieces) {
    if (now.size() < p.offset + p.bytes.size()) now.resize(p.offset + p.bytes.size(), '\0');
    now.replace(p.offset, p.bytes.size(), p.bytes);
  }
  now.resize(r.size, '\0');
  return now;
}

TEST(Tear, Words) {
  EXPECT_EQ(*parse_tear("sector"), Tear::kSector);
  EXPECT_EQ(*parse_tear("page"), Tear::kPage);
  EXPECT_EQ(*parse_tear("none"), Tear::kNone);
  EXPECT_EQ(parse_tear("block").error(), "tear must be none, sector or page, not 'block'");
  EXPECT_STREQ(tear_name(Tear::kSector), "sector");
  EXPECT_EQ(tear_unit(Tear::kSector), 512u);
  EXPECT_EQ(tear_unit(Tear::kPage), 4096u);
  EXPECT_EQ(tear_unit(Tear::kNone), 0u);
}

TEST(CrashPlan, WithoutTearingEverythingGoesBack) {
  UndoSnapshot s;
  // 8 bytes "AAAAAAAA"; epoch 1 wrote "BBBB" at 2 and extended to 12; epoch 2 wrote over 0..4.
  UndoEpoch e1 = epoch(1, 8, 2, 12, "AAAAAA");
  UndoEpoch e2 = epoch(2, 12, 0, 4, "AABB");
  s.files[kFile] = {e1, e2};
  s.changes = {UndoChange{10, 1, 5}, UndoChange{11, 3, 6}};
  const CrashPlan plan = plan_crash(s, Tear::kNone, 99);
  ASSERT_EQ(plan.files.size(), 1u);
  const FileRestore& r = plan.files[0];
  EXPECT_EQ(r.size, 8u);
  EXPECT_EQ(r.lost_bytes, 12u);
  EXPECT_EQ(r.survived_bytes, 0u);
  EXPECT_EQ(applied("CCCCBBBBBBBB", r), "AAAAAAAA");
  EXPECT_EQ(plan.undo_changes, (std::vector<uint64_t>{11, 10}));  // newest first
}

TEST(CrashPlan, SectorTearingIsTheSameForTheSameSeed) {
  // One epoch overwrote 8 sectors of 'A' with 'B'.
  UndoSnapshot s;
  s.files[kFile] = {epoch(2, 4096, 0, 4096, std::string(4096, 'A'))};
  std::string survivors;
  const std::string after =
      applied(std::string(4096, 'B'), plan_crash(s, Tear::kSector, 42).files[0]);
  for (size_t i = 0; i < 8; ++i) survivors += after[i * 512];
  // Which sectors keep the new data is the seed's: the same on every run.
  EXPECT_EQ(survivors, "BAABBABA");
  const FileRestore r = plan_crash(s, Tear::kSector, 42).files[0];
  EXPECT_EQ(r.survived_bytes, 4u * 512);
  EXPECT_EQ(r.lost_bytes, 4u * 512);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(survivors[i] == 'B', unit_survives(42, 2, i)) << i;
  }
  // Another seed, another pattern.
  const std::string other =
      applied(std::string(4096, 'B'), plan_crash(s, Tear::kSector, 43).files[0]);
  EXPECT_NE(other, after);
}

TEST(CrashPlan, ANewerEpochCanSurviveWhereAnOlderDoesNot) {
  // Find, for seed 5, a unit where epoch 2 survives and epoch 1 does not (reordering).
  uint64_t unit = 0;
  while (!(unit_survives(5, 2, unit) && !unit_survives(5, 1, unit))) ++unit;
  const uint64_t at = unit * 4096;
  UndoSnapshot s;
  s.files[kFile] = {epoch(1, at + 4096, at, at + 4096, std::string(4096, 'A')),
                    epoch(2, at + 4096, at, at + 4096, std::string(4096, 'B'))};
  const FileRestore r = plan_crash(s, Tear::kPage, 5).files[0];
  // Epoch 2's data ('C', what the file holds now) stays; nothing is written back.
  EXPECT_TRUE(r.pieces.empty());
  EXPECT_EQ(r.survived_bytes, 4096u);
  EXPECT_EQ(r.size, at + 4096);
}

TEST(CrashPlan, AnOlderEpochSurvivesUnderALostNewerOne) {
  uint64_t unit = 0;
  while (!(!unit_survives(5, 2, unit) && unit_survives(5, 1, unit))) ++unit;
  const uint64_t at = unit * 4096;
  UndoSnapshot s;
  s.files[kFile] = {epoch(1, at + 4096, at, at + 4096, std::string(4096, 'A')),
                    epoch(2, at + 4096, at, at + 4096, std::string(4096, 'B'))};
  const FileRestore r = plan_crash(s, Tear::kPage, 5).files[0];
  // Epoch 2 goes back to epoch 1's data, which stays.
  EXPECT_EQ(applied(std::string(at, 'x') + std::string(4096, 'C'), r).substr(at),
            std::string(4096, 'B'));
}

TEST(CrashPlan, ASurvivingSectorPastTheOldEndKeepsTheFileLongerWithZerosBefore) {
  // The file was empty; one epoch appended 4 sectors of 'B'.
  UndoSnapshot s;
  s.files[kFile] = {epoch(7, 0, 0, 2048)};
  uint64_t seed = 0;  // a seed where only sector 2 survives of the four
  while (!(!unit_survives(seed, 7, 0) && !unit_survives(seed, 7, 1) && unit_survives(seed, 7, 2) &&
           !unit_survives(seed, 7, 3)))
    ++seed;
  const FileRestore r = plan_crash(s, Tear::kSector, seed).files[0];
  EXPECT_EQ(r.size, 1536u);
  EXPECT_EQ(applied(std::string(2048, 'B'), r), std::string(1024, '\0') + std::string(512, 'B'));
}

}  // namespace
}  // namespace diskcond
