// Puts each conditioned FUSE request through the disk model and replies at its completion.
//
// Contract for a handler (the order matters):
//   1. arrival = now() as the handler starts; submit() to the model right away, before any
//      backing I/O, so the model sees commands in the order the kernel delivered them;
//   2. do the backing I/O;
//   3. reply(...) sends the reply at max(model completion - lead, backing I/O done), through the
//      ReplyScheduler: a worker never sleeps. For reads and writes the lead is a lower bound of
//      the FUSE round trip (TransitBound, from the daemon's own probes), so a queue-depth-1 caller
//      sees the model's time plus at most the rest of its round trip, and never less.
// It also keeps the figures MountCounters reports.
//
// Locking: the writeback's mutex, then the model's, then nothing; counters are atomics; the scheduler's mutex is a leaf.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/clock.h"
#include "core/disk_model.h"
#include "core/writeback.h"
#include "dmc/mount/reply_scheduler.h"
#include "dmc/mount/transit_bound.h"
#include "dmc/mount/mount_control.h"

namespace diskcond::mount {

// Cost of one metadata change (create, unlink, rename, setattr ...) in the model: a small write.
constexpr uint64_t kMetadataWriteBytes = 4096;

struct BackingBound {
  uint64_t replies = 0;
  double mean_excess_ns = 0;
};

class Conditioner {
 public:
  // REQUIRES: validate(profile) is ok; capacity > 0.
  Conditioner(const Profile& profile, uint64_t capacity, const Clock& clock,
              ReplyScheduler& scheduler, const WritebackParams& writeback = {});

  int64_t now() const { return clock_.now_ns(); }
  // Step 1. Returns the model's completion time. Writeback due by `arrival_ns` goes to the model
  // first (core/writeback.h), so it takes device time from this command.
  int64_t submit(Op op, uint64_t address, uint64_t length, int64_t arrival_ns);
  // Step 1 for CacheMode::kWriteBack (core/writeback.h). A buffered write becomes dirty data and
  // completes at once unless throttled at the dirty limit; metadata changes are journal entries
  // (complete at once); fsync pays for the file's dirty data, the journal commit and a flush.
  // `file` identifies the inode; `inode_address` is where its metadata lives (its region base).
  int64_t buffered_write(uint64_t file, uint64_t address, uint64_t length, uint64_t inode_address,
                         int64_t arrival_ns, bool resizes = true) {
    return writeback_.write(file, address, length, inode_address, arrival_ns, resizes);
  }
  int64_t journal(uint64_t file, uint64_t home_address, int64_t arrival_ns) {
    return writeback_.journal(file, home_address, arrival_ns);
  }
  int64_t fsync(uint64_t file, int64_t arrival_ns, bool datasync = false) {
    return writeback_.fsync(file, arrival_ns, datasync);
  }
  int64_t sync_all(int64_t arrival_ns) { return writeback_.sync_all(arrival_ns); }
  WritebackCounters writeback_counters() const { return writeback_.counters(); }
  // Step 3. `length` is the data size (4 KiB data commands feed the floor); `data` says whether
  // this was a data command (read/write) rather than a metadata change or flush.
  void reply(int64_t arrival_ns, int64_t completion_ns, Op op, uint64_t length, bool data,
             ReplyScheduler::Reply send);
  // Off: replies wait for the model's completion as received (DISKCOND_TRANSIT_LEAD=off, for
  // measuring what the lead changes). On by default.
  void set_transit_lead_enabled(bool on) { transit_enabled_ = on; }
  bool transit_lead_enabled() const { return transit_enabled_; }
  // Where the daemon's probes record the round trip; the lead is its lower bound.
  TransitBound& transit_bound() { return transit_; }
  // The FUSE round trip subtracted from data commands' model times now, in ns (0 when off): the
  // probes' lower bound less kTransitMarginNs. A probe's getattr is not exactly a read's path;
  // with fio on a 1 ms profile the fastest of ~4,000 reads came 9 us under the plain bound once
  // (fio's TSC clock; 1.3 us with clock_gettime), so a margin keeps such a read from being early.
  static constexpr int64_t kTransitMarginNs = 5'000;
  int64_t transit_lead_ns() const {
    return transit_enabled_ ? std::max<int64_t>(transit_.lower_bound_ns() - kTransitMarginNs, 0)
                            : 0;
  }

  void set_profile(const Profile& profile) { model_.set_profile(profile); }
  Profile profile() const { return model_.profile(); }
  MountCounters counters() const;
  // Replies whose backing I/O ended after the model's completion (the host, not the profile,
  // decided their time), and by how much on average. Diagnostics for status.
  BackingBound backing_bound() const;

 private:
  static void lower(std::atomic<int64_t>& floor, int64_t value);

  const Clock& clock_;
  ReplyScheduler& scheduler_;
  DiskModel model_;
  Writeback writeback_;  // every command reaches model_ through it
  TransitBound transit_;
  bool transit_enabled_ = true;  // set before the session runs
  std::atomic<int64_t> added_delay_sum_ns_{0};
  std::atomic<uint64_t> replies_{0};
  std::atomic<uint64_t> backing_bound_{0};
  std::atomic<int64_t> backing_excess_sum_ns_{0};
  std::atomic<int64_t> floor_read_ns_{0};  // 0 = none seen yet
  std::atomic<int64_t> floor_write_ns_{0};
};

}  // namespace diskcond::mount
