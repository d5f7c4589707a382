// The undo log of a crashable mount (`dmc start -crashable`): what a power cut would take back.
//
// Every write reaches the backing file at once (so a killed daemon loses nothing acknowledged);
// what the pretend disk does not hold yet is remembered as the bytes the write replaced. The
// write-back model (core/writeback.h, as its DurabilityListener) says when that changes:
//  - A file's writes between two sends of its dirty data form an *epoch*. The epoch keeps the
//    file's size before its first write and, for every byte it wrote, the byte before the epoch
//    (saved at the first write of that byte in the epoch; bytes past the size before the write
//    were zeros). When the model sends the file's dirty data the epoch is sealed with the
//    completion of those commands: durable then, and dropped by prune().
//  - A change of the namespace since the last journal commit (record_change: a creation, a
//    rename, a removal; what to do about it is the caller's) is durable at the completion of the
//    commit that holds it.
// crash_plan.h turns what is not durable at the moment of the crash into what to restore.
//
// Protocol for one write (the mount): record_write() with the bytes about to be replaced, which
// returns a token; the write is charged to the model with that token (Writeback::write calls
// dirtied(), which moves it into the file's open epoch); then the backing write. A write whose
// token never reaches dirtied() stays pending: not durable, restored by a crash.
//
// Bound: pre-images are kept only for bytes not durable yet, once per epoch, so bytes() is at
// most the model's dirty plus under-writeback data (the dirty limit) plus the writes between
// record_write() and dirtied(), plus the bytes overwritten again after their epoch was sealed
// and before it completed. The mount forces writeback past a limit (docs/dmc.md).
//
// Pure: no clock, no I/O. Thread-safe: one mutex, a leaf but for being taken under Writeback's
// (listener calls).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/writeback.h"

namespace diskcond {

// The not-yet-durable writes of one file between two sends of its dirty data.
struct UndoEpoch {
  static constexpr int64_t kNotYet = INT64_MAX;
  uint64_t seq = 0;                      // order of the epochs of the whole mount, from 1
  int64_t durable_ns = kNotYet;          // completion of the send that sealed it
  uint64_t base_size = 0;                // the file's size before the epoch's first write
  std::map<uint64_t, uint64_t> written;  // offsets written: start -> end, disjoint, merged
  // Bytes before the epoch, by offset, for written bytes below the size at their first write
  // (disjoint pieces; written bytes without a piece were zeros: past the end of the file, or
  // zeros not worth keeping).
  std::map<uint64_t, std::string> before;
  uint64_t stored_bytes() const;
};

// A namespace change (creation, rename, removal) since the journal's last commit.
struct UndoChange {
  uint64_t entry = 0;  // the caller's identifier of the change (what to undo)
  uint64_t seq = 0;    // order among epochs and changes
  int64_t durable_ns = UndoEpoch::kNotYet;
};

// What a crash at some moment takes back: every epoch not durable by then, per file, oldest
// first, and the namespace changes not durable by then, oldest first.
struct UndoSnapshot {
  std::map<uint64_t, std::vector<UndoEpoch>> files;
  std::vector<UndoChange> changes;
};

class UndoLog final : public DurabilityListener {
 public:
  // A write of `length` bytes at `offset` of `file`, whose size before it is `size`; `old` holds
  // its bytes [offset, min(offset + length, size)) before the write. Returns the token to
  // charge the write with (never 0). REQUIRES: length > 0.
  uint64_t record_write(uint64_t file, uint64_t offset, uint64_t length, uint64_t size,
                        std::string old);
  // The namespace change `entry` (the caller's number) is made; returns the token to journal it
  // with.
  uint64_t record_change(uint64_t entry);
  // The file's state now is kept by a crash: what was recorded for it is dropped (a truncate,
  // a write the model waits for, anything this log does not undo).
  void keep(uint64_t file);

  struct Pruned {
    std::vector<uint64_t> files;    // files with nothing recorded any more
    std::vector<uint64_t> entries;  // namespace changes now durable
  };
  // Drops what is durable by `now`.
  Pruned prune(int64_t now);
  // What is not durable at `now`.
  UndoSnapshot snapshot(int64_t now) const;
  // Pre-image bytes held.
  uint64_t bytes() const;
  // Files with something recorded.
  size_t files() const;

  // DurabilityListener (called by Writeback under its lock).
  void dirtied(uint64_t file, uint64_t token) override;
  void sent(uint64_t file, int64_t completion_ns) override;
  void journaled(uint64_t token) override;
  void committed(int64_t completion_ns) override;

 private:
  struct PendingWrite {
    uint64_t file, offset, length, size;
    std::string old;
  };
  struct FileLog {
    std::vector<UndoEpoch> sealed;  // oldest first
    UndoEpoch open;                 // seq 0 while it holds nothing
  };
  // REQUIRE mu_.
  void merge(FileLog& log, PendingWrite& w);
  void add_bytes(UndoEpoch& epoch, uint64_t offset, std::string bytes);

  mutable std::mutex mu_;
  uint64_t next_token_ = 1;
  uint64_t next_seq_ = 1;
  uint64_t bytes_ = 0;
  std::map<uint64_t, PendingWrite> pending_;  // by token
  std::map<uint64_t, FileLog> files_;
  std::map<uint64_t, UndoChange> pending_changes_;  // by token: not journaled yet
  std::vector<UndoChange> transaction_;             // in the running transaction
  std::vector<UndoChange> committed_;               // committed, by durable_ns order of commit
};

}  // namespace diskcond
