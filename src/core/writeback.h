// Write-back caching and a metadata journal in front of the disk model, the way Linux and ext4
// do it: buffered writes become dirty data, acknowledged at once; a background writeback sends
// the dirty data to the device later; metadata changes are journal entries, committed every few
// seconds as one small sequential write and checkpointed to their home locations afterwards.
//
// Pure and deterministic like DiskModel: no clock, no I/O. Callers pass arrival times and get
// completion times back; every foreground command goes through submit() (or one of the other
// entry points), which first submits to the model the writeback commands that fell due before
// its arrival, so they take device time from the foreground, as on a real disk. Event times are
// the only driver: nothing happens between two calls.
//
// The policy (Linux's, docs/disk-model.md "Write-back" has the details and what is simplified):
//  - Dirty data is tracked per file in whole pages, as the page cache holds it: device address
//    ranges rounded out to `kPageBytes` (a write of 100 bytes dirties, and writeback later writes,
//    the 4 KiB page holding them; a write across a page boundary two pages; re-dirtying a page
//    counts once), and the time the file became dirty. The mount maps files to the device in
//    whole blocks, so a file's page is a device page.
//  - Periodic writeback: when dirty data appears and no wake-up is pending, one is set
//    `writeback_interval_ns` later (dirty_writeback_centisecs). A wake-up writes every file that
//    became dirty at least `expire_ns` earlier (dirty_expire_centisecs) and, while dirty data
//    remains, sets the next wake-up one interval later.
//  - Background writeback: as soon as dirty data not yet sent to the device exceeds the
//    background threshold, the files dirtied longest ago are sent (whole files) until it no
//    longer does.
//  - Throttling: dirty plus under-writeback bytes may not exceed the dirty limit; a write that
//    would pass it completes when enough writeback has completed on the device to make room.
//  - Elevator: each batch of writeback is sent in ascending device address order, adjacent
//    ranges merged into one command.
//  - Journal: metadata changes (and the inode change of a write) join the running transaction
//    and are acknowledged at once. The transaction commits `commit_interval_ns` after its first
//    entry (ext4's commit=5), or at an fsync of a file it holds, as jbd2 does with barriers: one
//    sequential write of a descriptor block and one block per distinct home block at the
//    journal's head, a device flush, then the commit block after them and a second flush (its
//    FUA, a flush on disks without FUA): two round trips. After a commit its home blocks are
//    dirty (the checkpoint), and
//    the writeback above writes them to their home addresses like any dirty data.
//  - fsync(file): that file's dirty data (address order), the commit of the running transaction
//    if it holds the file, then a flush. The commit's journal blocks go out once the data has
//    completed: ext4_sync_file writes and waits for the file's data before it asks jbd2 to
//    commit, so an fsync that commits is three device round trips and two flushes in a row.
//    fdatasync (`datasync`) skips the commit when the transaction holds only the file's timestamps
//    (writes that changed neither its size nor its blocks), as ext4 does. Other files' dirty data
//    that is not yet under writeback is not waited for; the flush does wait for every write already
//    sent to the device, as a disk cache flush does.
//  - fsync(directory): the commit of the running transaction whatever it holds, and no flush of
//    its own: ext4 forces a journal commit for an fsync of anything but a regular file
//    (ext4_fsync_journal -> ext4_force_commit) and sends no barrier besides the commit's. So a
//    directory fsync right after a file's fsync committed (SQLite's, after creating its rollback
//    journal) costs nothing. Traced on the ext4 reference (block_rq_issue, Slow SSD, SQLite
//    DELETE journal): four flushes per transaction, where a flush per directory fsync made five.
//
// Durability (for power loss, core/undo_log.h): a DurabilityListener, when set, is told under the
// lock when a tagged write joins a file's dirty data, when a file's dirty data is sent (and when
// those commands complete on the device: then it is durable), when a tagged journal entry joins
// the running transaction and when a transaction's commit completes. The pretend device has no
// volatile write cache: a completed write is durable.
//
// Thread-safe: one mutex, taken before DiskModel's (lock order: Writeback::mu_, DiskModel::mu_;
// the listener's own lock comes after Writeback::mu_).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "core/disk_model.h"

namespace diskcond {

// Linux's vm.dirty_* defaults and ext4's commit interval. Thresholds in bytes win over ratios
// when non-zero (as in Linux); ratios are percent of `dirtyable_memory_bytes`.
struct WritebackParams {
  uint64_t dirtyable_memory_bytes = uint64_t{1} << 30;
  uint32_t dirty_background_ratio = 10;
  uint64_t dirty_background_bytes = 0;
  uint32_t dirty_ratio = 20;
  uint64_t dirty_bytes = 0;
  int64_t expire_ns = 30'000'000'000;             // dirty_expire_centisecs = 3000
  int64_t writeback_interval_ns = 5'000'000'000;  // dirty_writeback_centisecs = 500; 0 = off
  int64_t commit_interval_ns = 5'000'000'000;     // ext4 commit=5
  uint64_t journal_address = 0;                   // start of the journal region on the device
  uint64_t journal_bytes = uint64_t{128} << 20;   // ext4's journal size on large filesystems

  uint64_t background_threshold() const;
  uint64_t dirty_limit() const;
};

// Told, under Writeback's lock, when data and journal entries become durable (see above). Tokens
// are the caller's (0 means untagged: no call).
class DurabilityListener {
 public:
  virtual ~DurabilityListener() = default;
  // A buffered write tagged `token` joined the dirty data of `file`.
  virtual void dirtied(uint64_t file, uint64_t token) = 0;
  // Every dirty byte of `file` was sent to the device: durable once `completion_ns` has passed.
  virtual void sent(uint64_t file, int64_t completion_ns) = 0;
  // A journal entry tagged `token` joined the running transaction.
  virtual void journaled(uint64_t token) = 0;
  // The running transaction committed: its entries are durable once `completion_ns` has passed.
  virtual void committed(int64_t completion_ns) = 0;
};

// Size of a journal block and of a metadata home block.
constexpr uint64_t kJournalBlockBytes = 4096;
// Size of a page of the page cache: dirty data is tracked and written back in whole pages.
constexpr uint64_t kPageBytes = 4096;

struct WritebackCounters {
  uint64_t dirty_bytes = 0;         // dirty now, not yet sent to the device
  uint64_t written_back_bytes = 0;  // sent by writeback or fsync (data and checkpoints)
  uint64_t writeback_commands = 0;
  uint64_t commits = 0;
  uint64_t journal_entries = 0;
  uint64_t throttled_writes = 0;
  int64_t throttled_ns = 0;  // total time writers waited for the dirty limit
};

class Writeback {
 public:
  // Identifies a file (the mount uses its inode id). kMetadataFile is reserved.
  using FileId = uint64_t;
  static constexpr FileId kMetadataFile = ~FileId{0};

  // `model` must outlive this. REQUIRES: params.journal_bytes >= 3 * kJournalBlockBytes.
  Writeback(DiskModel& model, const WritebackParams& params);

  // A foreground command (read, direct write, flush): writeback due by its arrival goes first.
  int64_t submit(const Command& c);
  // A buffered write of `length` bytes at `address` of `file`, whose inode lives at
  // `inode_address` (its timestamps change: a journal entry; `resizes`: its size or its blocks
  // change too, which fdatasync must commit). Returns when write(2) returns: `arrival`, or later
  // when the writer is throttled at the dirty limit.
  // `token`: see DurabilityListener.
  int64_t write(FileId file, uint64_t address, uint64_t length, uint64_t inode_address,
                int64_t arrival, bool resizes = true, uint64_t token = 0);
  // A metadata change whose home block is at `home_address`, on behalf of `file`. Acknowledged at
  // once: returns `arrival`.
  int64_t journal(FileId file, uint64_t home_address, int64_t arrival, uint64_t token = 0);
  // fsync (or fdatasync, `datasync`) of `file`. Returns its completion.
  int64_t fsync(FileId file, int64_t arrival, bool datasync = false);
  // fsync of directory `dir` (see above: the running transaction's commit, no flush otherwise).
  // Returns its completion: `arrival` when there is nothing to commit or write.
  int64_t fsync_directory(FileId dir, int64_t arrival);
  // Commits the running transaction and writes every dirty byte, then flushes (sync(2)).
  int64_t sync_all(int64_t arrival);
  // Submits the writeback due by `now` (nothing else). Idempotent.
  void advance(int64_t now);

  // Set before the first command, or null. `listener` must outlive this.
  void set_listener(DurabilityListener* listener);

  WritebackCounters counters() const;
  WritebackParams params() const;
  void set_params(const WritebackParams& params);
  // Bytes of `file` dirty and not yet sent to the device.
  uint64_t dirty_bytes(FileId file) const;

 private:
  struct DirtyFile {
    int64_t dirtied_ns = 0;
    std::map<uint64_t, uint64_t> ranges;  // start -> end (exclusive), disjoint, not adjacent
    uint64_t bytes = 0;
  };
  struct InFlight {
    int64_t completion_ns;
    uint64_t bytes;
  };

  // All REQUIRE mu_.
  void advance_locked(int64_t now);
  int64_t next_event() const;
  void wake(int64_t at);
  void add_dirty(FileId file, uint64_t address, uint64_t length, int64_t at);
  int64_t write_files(const std::vector<FileId>& files, int64_t at);
  void background(int64_t at);
  // The files dirtied longest ago, oldest first, until the dirty data left is at most `target`.
  std::vector<FileId> oldest_files_until(uint64_t target) const;
  // Commits the running transaction at `at`; its journal blocks start no earlier than
  // `data_done_ns` (an fsync's or sync's data, written and waited for first). Returns when the
  // commit is durable.
  int64_t commit(int64_t at, int64_t data_done_ns = 0);
  // A change of `file` whose home block holds `home_address` joins the running transaction
  // (`resizes`: fdatasync must commit it too); the first entry sets the commit timer.
  void join_transaction(FileId file, uint64_t home_address, bool resizes, int64_t at);
  void prune(int64_t now);
  uint64_t under_writeback(int64_t now) const;
  int64_t room_at(uint64_t needed, int64_t arrival);

  mutable std::mutex mu_;
  DiskModel& model_;
  WritebackParams params_;
  std::map<FileId, DirtyFile> dirty_;
  uint64_t dirty_total_ = 0;
  std::deque<InFlight> in_flight_;  // writeback sent to the device, by completion (monotonic)
  int64_t next_wakeup_ns_;          // periodic writeback; kNever when none is pending
  // The running transaction.
  std::set<uint64_t> txn_blocks_;
  std::set<FileId> txn_files_;            // files with changes fdatasync must commit
  std::set<FileId> txn_timestamp_files_;  // files whose only change is their timestamps
  int64_t txn_commit_ns_;                 // when it commits by the timer; kNever when empty
  uint64_t journal_head_ = 0;             // offset of the next journal write inside the region
  int64_t last_event_ns_;
  WritebackCounters counters_;
  DurabilityListener* listener_ = nullptr;
};

}  // namespace diskcond
