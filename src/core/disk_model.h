// The disk model: given a profile, decides when each I/O command completes.
//
// Pure and deterministic: it never reads a clock. Callers pass each command's arrival time
// (nanoseconds on any monotonic clock) and get back its completion time on the same clock.
// Frontends (the FUSE conditioner, tests, benchmarks) bring the clock; see core/clock.h.
//
// The rules (docs/disk-model.md has the derivations):
//  - A command longer than the profile's max bytes for its direction is split into pieces of at
//    most that size; each piece is a command of its own and pays its own access cost.
//  - At most queue_depth pieces are in service at once; the rest wait for a slot, in arrival order.
//  - SSD: a piece in service pays access_time (overlapping with the others in service), then
//    transfers over one data channel shared by all pieces: bytes / throughput of its direction.
//    The shared channel is why aggregate throughput never exceeds the profile's.
//  - HDD: one piece at a time (one actuator). A piece that starts where the previous one ended
//    pays no access cost; any other pays hdd_seek_ns(distance / capacity), a curve whose mean over
//    uniformly random positions is exactly access_time. After spinup_idle_ns without work the
//    next piece first waits spinup_ns (when both are non-zero).
//  - HDD look-ahead: after a read the drive keeps reading the sectors that follow into its buffer
//    while it has nothing else to do (ATA read look-ahead, on by default in drives), at most
//    kHddReadAheadBytes. A read that continues where the last read ended takes what is buffered
//    and transfers only the rest from the platter, so a caller that reads sequentially one
//    command at a time, with its own turnaround between commands, still gets the platter's rate
//    (never more: the buffer fills at that rate). Any other command empties the buffer.
//  - HDD write-behind: the drive acknowledges a write when it is on the platter (a completed write
//    is durable), but its write cache lets a sequential stream run on while the caller turns
//    around: a write that continues where the last write ended costs the platter only the idle
//    since then that exceeds the last write's own transfer (what the cache was still destaging
//    when a drive with write caching would have acknowledged it), counting at most
//    kHddWriteBufferBytes of either write. The platter never starts a write before the last one
//    ended and a write never completes before it arrived, so a stream gets the platter's rate and
//    never more. A read, a seek, a spin-up or a flush (which waits for the cache) ends the stream.
//  - With a latency tail (Profile::latency_tail_milli), each piece's service time (SSD: its
//    access and its transfer; HDD: its seek and transfer, not a spin-up) is multiplied by
//    latency_factor(), lognormal with mean 1: the same mean, uneven pieces. With a latency table
//    (Profile::latency_table) the factor is latency_table_factor() instead: the table's
//    distribution, normalized to mean 1.
//  - A flush completes when every write submitted before it has completed (and not before it
//    arrived); it occupies no slot and moves no data.
//  - set_profile() applies to commands submitted afterwards; commands already submitted keep the
//    completion times they were given.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "core/latency_table.h"
#include "core/profile.h"

namespace diskcond {

enum class Op { kRead = 0, kWrite = 1, kFlush = 2 };

struct Command {
  Op op = Op::kRead;
  uint64_t offset = 0;  // in the device address space, bytes
  uint64_t length = 0;  // bytes; ignored for kFlush
  int64_t arrival_ns = 0;
  // A command its issuer sends only once earlier ones are done (a journal's commit block after
  // its journal blocks are durable): it takes its place in the order at arrival_ns but starts
  // no earlier than this. 0: no such wait.
  int64_t not_before_ns = 0;
};

struct ModelCounters {
  uint64_t commands[3] = {};  // indexed by Op
  uint64_t bytes[3] = {};
  uint64_t pieces = 0;           // device commands after splitting
  uint64_t seeks = 0;            // HDD pieces that paid an access cost
  int64_t total_latency_ns = 0;  // sum over commands of completion - arrival
  // Commands that arrived before a command submitted earlier (overtaken on their way to the
  // model): served after it, as if arriving with it, which costs an HDD a seek back when they
  // were the pieces before it.
  uint64_t overtaken = 0;
  int64_t last_completion_ns = 0;
};

// Cost of an HDD access over `fraction` (0..1] of the address space, for a profile whose mean
// random access time is `access_ns`:  access * (1/3 + (2/3) * sqrt(fraction) / (8/15)).
// 8/15 is the mean of sqrt(|U1-U2|) for independent uniform U1, U2, so random accesses average
// access_ns exactly; the 1/3 floor stands for rotational latency and head settling, paid by any
// non-sequential access however short.
int64_t hdd_seek_ns(int64_t access_ns, double fraction);

// Mean of hdd_seek_ns between uniformly random positions within `span_fraction` (0..1] of the
// address space: access * (1/3 + (2/3) * sqrt(span_fraction)); exactly access_ns for the whole
// disk. Random I/O confined to a small file seeks less, as on a real disk.
double hdd_mean_random_access_ns(int64_t access_ns, double span_fraction);

// At most this much of an HDD's buffer fills by look-ahead (see the rules above): a segment of
// the 8-256 MiB caches of current drives.
constexpr uint64_t kHddReadAheadBytes = 1 << 20;

// At most this much of a write counts for write-behind (see the rules above): as for look-ahead, a
// segment of the drive's cache.
constexpr uint64_t kHddWriteBufferBytes = 1 << 20;

// Nanoseconds to move `bytes` at `bytes_per_sec`, rounded up; 0 when the rate is 0 (unlimited).
int64_t transfer_ns(uint64_t bytes, uint64_t bytes_per_sec);

// The factor on piece number `index`'s service time for a latency tail of `tail_milli`
// thousandths (Profile::latency_tail_milli): exp(sigma * Z - sigma^2 / 2), Z standard normal drawn
// from (seed, index) alone, sigma = ln(tail) / z(0.99). Lognormal with mean 1 (the mean service
// time, so the throughput, is the model's) and p99 tail times its median. Exactly 1 when
// tail_milli <= 1000.
double latency_factor(uint32_t tail_milli, uint32_t seed, uint64_t index);

class DiskModel {
 public:
  // REQUIRES: validate(profile) is ok. capacity_bytes > 0 (HDD seek distances are fractions of it).
  DiskModel(const Profile& profile, uint64_t capacity_bytes);

  // Thread-safe. Returns the completion time of `c`. Commands are served in submission order; a
  // command whose arrival is earlier than a previously submitted one's is treated as arriving
  // with it (time never runs backwards inside the model).
  int64_t submit(const Command& c);

  // Thread-safe. REQUIRES: validate(profile) is ok.
  void set_profile(const Profile& profile);
  Profile profile() const;
  uint64_t capacity() const { return capacity_; }
  ModelCounters counters() const;
  // Pieces whose service has not completed at `now_ns` (waiting or in service).
  uint32_t outstanding(int64_t now_ns) const;

 private:
  int64_t submit_piece(Op op, uint64_t offset, uint64_t length, int64_t arrival);  // REQUIRES mu_
  int64_t take_slot(int64_t arrival);     // pops the earliest-free slot; REQUIRES mu_
  void release_slot(int64_t completion);  // REQUIRES mu_
  void resize_slots(uint32_t depth);      // REQUIRES mu_

  mutable std::mutex mu_;
  Profile profile_;
  LatencyTable latency_table_;  // profile_.latency_table, parsed
  const uint64_t capacity_;
  std::vector<int64_t> slots_;  // min-heap of the times each service slot becomes free
  int64_t last_arrival_ns_;
  int64_t channel_free_ns_;  // SSD data channel; HDD actuator
  int64_t latest_completion_ns_;
  int64_t last_write_completion_ns_;
  uint64_t head_position_;         // HDD: byte after the last piece served
  uint64_t read_ahead_bytes_ = 0;  // HDD: bytes from head_position_ on already in the buffer
  bool last_piece_read_ = false;   // HDD: the last piece served was a read (look-ahead follows)
  int64_t last_write_ns_ = 0;      // HDD: the last piece's buffered transfer if a write, else 0
  std::deque<int64_t> pending_;    // completion times of pieces not yet done at the last arrival
  ModelCounters counters_;
};

}  // namespace diskcond
