// What a power cut leaves on the pretend disk: from the undo log's snapshot of what was not
// durable (core/undo_log.h), the bytes to put back, the size each file returns to and the
// namespace changes to undo. Pure: the mount applies the plan.
//
// Without tearing every byte written since the file's last durable epoch gets back its value
// before that epoch, every file its size then, and every namespace change since the last
// durable journal commit is undone, newest first.
//
// With tearing (sector: 512-byte units of the file, page: 4096), each unit of each epoch that is
// not durable survives or not by a coin of the seed, the epoch's sequence number and the unit's
// index (splitmix64): a unit holds the data of the newest epoch in which it survived, or, in
// none, its value before the oldest. So a later write can survive where an earlier one did not
// (reordering) and one write can survive in part (a torn write). A file keeps its size before
// the oldest lost epoch, or up to the end of its last surviving written byte when that is more.
// The same writes and the same seed give the same result on every run. Namespace changes are
// journal entries: never torn (a journal commit is atomic).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/undo_log.h"

namespace diskcond {

enum class Tear { kNone, kSector, kPage };

// "none", "sector", "page".
const char* tear_name(Tear tear);
Result<Tear> parse_tear(const std::string& word);
// Bytes per unit: 0 for kNone (the whole write is one unit that never survives).
uint64_t tear_unit(Tear tear);

struct RestorePiece {
  uint64_t offset = 0;
  std::string bytes;
};

struct FileRestore {
  uint64_t file = 0;
  std::vector<RestorePiece> pieces;  // write in this order (a later one wins), then truncate
  uint64_t size = 0;                 // ftruncate to this afterwards
  uint64_t lost_bytes = 0;           // written bytes that went back
  uint64_t survived_bytes = 0;       // written bytes kept by tearing
};

struct CrashPlan {
  std::vector<FileRestore> files;
  std::vector<uint64_t> undo_changes;  // newest first
};

// REQUIRES: each file's epochs oldest first (UndoLog::snapshot).
CrashPlan plan_crash(const UndoSnapshot& snapshot, Tear tear, uint64_t seed);

// Whether unit `index` of the epoch numbered `epoch_seq` survives the crash.
bool unit_survives(uint64_t seed, uint64_t epoch_seq, uint64_t index);

}  // namespace diskcond
