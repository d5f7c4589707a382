// Puts each conditioned FUSE request through the disk model and replies at its completion.
//
// The contract, as types (ticket.h): a handler
//   1. begins a Ticket as it starts (begin(), begin_metadata()): the request's arrival is now
//      (or its kernel send); on an HDD profile a read or write first waits, briefly and bounded,
//      for the data requests the kernel sent before it to reach the model (send_order.h);
//   2. charges to it, right away and before any backing I/O, the model commands its reply waits
//      for (submit(), buffered_write(), journal(), fsync(), change_metadata()), each submitted at
//      the ticket's arrival, so the model sees commands in the order the kernel delivered them;
//   3. says it has charged everything (charged(): reads and writes, for the send order), then
//      does the backing I/O;
//   4. finish()es the ticket with its reply, which is handed at max(model completion - lead,
//      backing I/O done) to the ReplyTimer (the ReplyScheduler): a worker never sleeps. Times are
//      device times (mount/device_clock.h: stalls stop the clock); a reply that waited for a device
//      command or an fsync is due at least 1 ns after its arrival, so a stall holds it. For data
//      (reads and writes) the lead is a lower bound of the FUSE round trip (TransitBound, from
//      the daemon's own probes), plus lower bounds of what copying the data adds (CopyBound:
//      a read's reply into the caller, a write's request into the daemon, from the daemon's own
//      measurements), so a queue-depth-1 caller sees the model's time plus at most the rest of
//      its round trip, and never less; for everything else it is 0.
// Steps 1, 2 and 4 are held by the types (arrival, op, length and kind live in the ticket; a
// ticket not finished exactly once is counted in ticket_misuses()); step 2 before 3 is the
// handler's to keep.
// It also keeps the figures MountCounters reports.
//
// Locking: the writeback's mutex, then the model's, then nothing; counters are atomics; the
// scheduler's mutex and the idle poll's are leaves.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/clock.h"
#include "core/disk_model.h"
#include "core/writeback.h"
#include "dmc/mount/caller_cpu.h"
#include "dmc/mount/copy_bound.h"
#include "dmc/mount/idle_poll.h"
#include "dmc/mount/mount_control.h"
#include "dmc/mount/reply_scheduler.h"
#include "dmc/mount/send_order.h"
#include "dmc/mount/ticket.h"
#include "dmc/mount/transit_bound.h"

namespace diskcond::mount {

// Cost of one metadata change (create, unlink, rename, setattr ...) in the model: a small write.
constexpr uint64_t kMetadataWriteBytes = 4096;
// Data requests of this size measure the mount's floor (MountCounters::floor_read_ns/_write_ns).
constexpr uint64_t kFloorBytes = 4096;

struct BackingBound {
  uint64_t replies = 0;
  double mean_excess_ns = 0;
  int64_t total_excess_ns = 0;  // exact: replies * mean_excess_ns
};

class Conditioner {
 public:
  // REQUIRES: validate(profile) is ok; capacity > 0.
  Conditioner(const Profile& profile, uint64_t capacity, const Clock& clock, ReplyTimer& scheduler,
              const WritebackParams& writeback = {});

  // The model's clock: the device's (mount/device_clock.h), which stalls stop.
  int64_t now() const { return clock_.now_ns(); }
  // CLOCK_MONOTONIC: for what is not the device's (fault rules' windows and log, `dmc sync`'s
  // reply), and when the device clock reads `device_ns` (kNeverNs while a stall holds it).
  int64_t wall_now() const { return clock_.wall_now_ns(); }
  int64_t wall_when(int64_t device_ns) const { return clock_.wall_ns_when(device_ns); }
  // Replies handed to the reply timer and not yet sent (ReplyTimer::waiting).
  int replies_waiting() const { return scheduler_.waiting(); }
  // The device clock at wall time `wall_ns` in the past (Clock::ns_at_wall).
  int64_t at_wall(int64_t wall_ns) const { return clock_.ns_at_wall(wall_ns); }
  // The arrival of the request this thread serves: when the kernel sent it or the thread read it
  // from /dev/fuse if that was noted (request_arrival.h; the note is taken), else now(). begin()
  // and begin_metadata() use it, and so does the transit probe's handler, so that the probe's
  // round trip leaves out what the model's time then includes.
  Arrival arrival_now() const;

  // ---- 1. Begin: the request arrives now, or when this thread read it from /dev/fuse if that
  // was noted (request_arrival.h).
  // A data request (op kRead or kWrite, `length` bytes asked) or a flush/fsync (op kFlush,
  // length 0). REQUIRES: length == 0 for kFlush.
  Ticket begin(Op op, uint64_t length);
  // A metadata request (lookup, listing, change): conditioned once something is charged to it.
  Ticket begin_metadata();

  // ---- 2. Charge, before the backing I/O: model commands the reply waits for, at the ticket's
  // arrival. Writeback due by then goes to the model first (core/writeback.h), so it takes device
  // time from this command. REQUIRES: `t` live (not finished).
  void submit(Ticket& t, Op op, uint64_t address, uint64_t length);
  // CacheMode::kWriteBack (core/writeback.h). A buffered write becomes dirty data and completes
  // at once unless throttled at the dirty limit; metadata changes are journal entries (complete
  // at once); fsync pays for the file's dirty data, the journal commit and a flush. `file`
  // identifies the inode; `inode_address` is where its metadata lives (its region base).
  // `token`: an undo log's (crashable mounts, Writeback's DurabilityListener); 0 for none.
  void buffered_write(Ticket& t, uint64_t file, uint64_t address, uint64_t length,
                      uint64_t inode_address, bool resizes = true, uint64_t token = 0);
  void journal(Ticket& t, uint64_t file, uint64_t home_address, uint64_t token = 0);
  // sync(2) charged to `t`: the journal commit, every dirty byte, a flush (a crashable mount's
  // undo log past its bound makes everything durable so).
  void sync(Ticket& t);
  void fsync(Ticket& t, uint64_t file, bool datasync = false);
  // fsync of a directory: the running transaction's commit, no flush of its own
  // (Writeback::fsync_directory).
  void fsync_directory(Ticket& t, uint64_t dir);
  // One metadata change of `file`, whose inode lives at `home_address`: a journal entry when
  // `journaled` (write-back mode), else one kMetadataWriteBytes write of its block. The ticket's
  // op becomes kWrite and its length kMetadataWriteBytes. REQUIRES: t.kind() == kMetadata.
  // `token`: as journal()'s, when journaled.
  void change_metadata(Ticket& t, uint64_t file, uint64_t home_address, bool journaled,
                       uint64_t token = 0);

  // ---- 3. Before the backing I/O, a read or write says it has charged everything: its request
  // has reached the model, and those the kernel sent after it may go on (send_order.h). Once per
  // ticket; finish() says it for a ticket that did not.
  void charged(Ticket& t);

  // ---- 4. Finish, after the backing I/O: sends `send` at max(completion - lead, now) through
  // the scheduler (the lead for data only: data_lead_ns(reply_bytes, a write's length); a reply
  // that waits, from its caller's CPU: set_caller_cpus()), and counts the reply. `reply_bytes`: the
  // data `send` carries to the caller (a read's bytes read; 0 otherwise). A ticket that is not
  // conditioned() is answered at once on the caller and counts nothing.
  void finish(Ticket t, ReplyTimer::Reply send, uint64_t reply_bytes = 0);

  // Not a FUSE request: `dmc sync` (sync(2) for the mount). Returns its completion.
  int64_t sync_all(int64_t arrival_ns) { return writeback_.sync_all(arrival_ns); }
  // Not a FUSE request: the writeback and commits due by `now` happen (a crash at `now` must
  // see them; nothing happens between commands otherwise).
  void advance(int64_t now) { writeback_.advance(now); }
  WritebackCounters writeback_counters() const { return writeback_.counters(); }
  // Crashable mounts: the undo log the write-back model tells about durability. Set before the
  // session runs.
  void set_durability_listener(DurabilityListener* l) { writeback_.set_listener(l); }
  // Tickets destroyed unfinished, finished twice, charged once finished or finished by another
  // conditioner (ticket.h): bugs, 0 in a correct build.
  uint64_t ticket_misuses() const { return ticket_misuses_.load(std::memory_order_relaxed); }

  // Off: replies wait for the model's completion as received (DISKCOND_TRANSIT_LEAD=off, for
  // measuring what the lead changes). On by default.
  void set_transit_lead_enabled(bool on) { transit_enabled_ = on; }
  bool transit_lead_enabled() const { return transit_enabled_; }
  // Where the daemon's probes record the round trip; the lead is its lower bound.
  TransitBound& transit_bound() { return transit_; }
  // The FUSE round trip subtracted from data commands' model times now, in ns (0 when off): the
  // probes' lower bound (the fastest getattr of their back-to-back bursts), never more than
  // kMaxTransitLeadNs. A getattr's trip is not exactly a read's or a write's, and probes sent
  // while the machine is slow (a new mount's start-up bursts under load) can all miss the fast
  // trip a caller in a tight loop gets (a fresh-clone CI run: 25.9 us where back-to-back statx
  // took 4.3 us). The cap is what keeps the promise whatever the probes saw: a reply leaves at
  // most kMaxTransitLeadNs before the model's time and still has its own trip to make, within
  // the never-faster tests' 10 us tolerance. (Before the bursts, a margin of 5 us was subtracted
  // as well; under the cap it only took the lead away: 0 on a VM whose fastest trip is ~4 us.)
  static constexpr int64_t kMaxTransitLeadNs = 5'000;
  // A reply goes out from its caller's CPU (set_caller_cpus()) only when it waits at least this
  // long after its backing I/O: a shorter wait leaves that CPU's lane too little time to be
  // scheduled there before the reply is due, and the real-time backup then sends it
  // ReplyScheduler::kIdleLaneGraceNs late. Measured (fio 4 KiB QD1 reads, DISKCOND_REPLY_CPU off /
  // on, 3 rounds, docs/conditioner.md): SATA III SSD (37.5 us, waits ~30 us) 17.3k/16.5k/17.6k
  // against 16.0k/15.2k/15.0k IOPS routed; SATA II SSD (74.5 us, waits ~65 us) 9.8k/9.9k/10.5k
  // against 11.1k/10.1k/10.6k routed. A lone request's shorter wait is spun by its worker
  // instead (set_worker_spin()).
  static constexpr int64_t kMinRoutedWaitNs = ReplyTimer::kShortWaitNs;
  int64_t transit_lead_ns() const {
    if (!transit_enabled_) return 0;
    return std::clamp<int64_t>(transit_.lower_bound_ns(), 0, kMaxTransitLeadNs);
  }
  // Off: copying a request's or reply's data earns no extra lead (DISKCOND_COPY_LEAD=off, for
  // measuring what it changes). On by default; off whenever the transit lead is.
  void set_copy_lead_enabled(bool on) { copy_enabled_ = on; }
  bool copy_lead_enabled() const { return transit_enabled_ && copy_enabled_; }
  // Where the session's /dev/fuse I/O records its measurements (session_io.cc): the thread CPU
  // time of reply writes and of request reads.
  CopyBound& reply_copy_bound() { return reply_copy_; }
  CopyBound& request_copy_bound() { return request_copy_; }
  // The whole lead of a data reply carrying `reply_bytes` to its caller, for a request that
  // carried `request_bytes` to the daemon: transit_lead_ns() plus both copies' bounds (when on).
  int64_t data_lead_ns(uint64_t reply_bytes, uint64_t request_bytes = 0) const {
    if (!copy_lead_enabled()) return transit_lead_ns();
    return transit_lead_ns() + reply_copy_.lead_ns(reply_bytes) +
           request_copy_.lead_ns(request_bytes);
  }

  // Told of every conditioned reply (finish()) while the profile charges time, so that idle CPUs
  // poll while traffic flows (idle_poll.h). Set before the session runs; null (the default):
  // nobody is told.
  void set_idle_poll(IdlePoll* idle_poll) { idle_poll_ = idle_poll; }
  const IdlePoll* idle_poll() const { return idle_poll_; }
  // Replies that wait go out from the CPU their caller (request_caller()) sleeps on, as
  // `caller_cpus` says (caller_cpu.h), so that waking it stays on that CPU. Set before the session
  // runs; null (the default): from any CPU.
  void set_caller_cpus(CallerCpus* caller_cpus) { caller_cpus_ = caller_cpus; }
  // A reply due within ReplyTimer::kMaxSpinWaitNs of its backing I/O's end, when no other ticket
  // is live (a queue-depth-1 caller's), is handed over for the worker to wait for itself
  // (ReplyTimer::kThisThread), which sends it from the caller's CPU (reply_scheduler.h). Set
  // before the session runs; on by default (DISKCOND_WORKER_SPIN=off turns it off).
  void set_worker_spin(bool on) { worker_spin_ = on; }

  // Data requests reach the model in the kernel's order of sending them while the profile is an
  // HDD's, whose seeks make the order cost time (send_order.h): begin() waits for the earlier
  // ones, and charged() (or finish()) tells `order` its request got there. Set
  // before the session runs; null (the default): in the order the workers get there.
  void set_send_order(SendOrder* order) { send_order_ = order; }

  void set_profile(const Profile& profile) {
    model_.set_profile(profile);
    charges_time_.store(diskcond::charges_time(profile), std::memory_order_relaxed);
    seeks_.store(profile.type == DiskType::kHDD, std::memory_order_relaxed);
  }
  // Whether the current profile makes commands take time (core/profile.h charges_time): false
  // for conditioning off, where O_DIRECT keeps its backing meaning (ops_file.cc).
  bool charges_time() const { return charges_time_.load(std::memory_order_relaxed); }
  Profile profile() const { return model_.profile(); }
  MountCounters counters() const;
  // Completion minus arrival added up over every command the model has served (including the
  // write-back's own), for status: with counters()' commands, the model's mean service time.
  int64_t model_latency_total_ns() const { return model_.counters().total_latency_ns; }
  uint64_t model_overtaken_commands() const { return model_.counters().overtaken; }
  // Replies whose backing I/O ended after the model's completion (the host, not the profile,
  // decided their time), and by how much on average. Diagnostics for status.
  BackingBound backing_bound() const;
  // Conditioned replies sent or handed to the reply timer so far.
  uint64_t replies() const { return replies_.load(std::memory_order_relaxed); }

 private:
  friend class Ticket;  // reports misuse
  static void lower(std::atomic<int64_t>& floor, int64_t value);
  // False (and counted; an assert in debug builds) unless `t` is live and this conditioner's.
  bool check_ticket(const Ticket& t);
  void count_misuse();

  const Clock& clock_;
  std::atomic<bool> charges_time_;
  std::atomic<bool> seeks_;  // an HDD profile (set_send_order)
  ReplyTimer& scheduler_;
  DiskModel model_;
  Writeback writeback_;  // every command reaches model_ through it
  TransitBound transit_;
  CopyBound reply_copy_;               // a read's data into the caller
  CopyBound request_copy_;             // a write's data into the daemon
  bool transit_enabled_ = true;        // set before the session runs
  bool copy_enabled_ = true;           // set before the session runs
  IdlePoll* idle_poll_ = nullptr;      // set before the session runs
  CallerCpus* caller_cpus_ = nullptr;  // set before the session runs
  bool worker_spin_ = true;            // set before the session runs
  // Tickets begun and not finished (one misused by being destroyed unfinished stays counted:
  // workers then never spin, the safe side).
  std::atomic<int> live_tickets_{0};
  SendOrder* send_order_ = nullptr;  // set before the session runs
  std::atomic<int64_t> added_delay_sum_ns_{0};
  std::atomic<uint64_t> replies_{0};
  std::atomic<uint64_t> backing_bound_{0};
  std::atomic<int64_t> backing_excess_sum_ns_{0};
  std::atomic<int64_t> floor_read_ns_{0};  // 0 = none seen yet
  std::atomic<int64_t> floor_write_ns_{0};
  std::atomic<uint64_t> ticket_misuses_{0};
};

}  // namespace diskcond::mount
