// Stalls (issue 15, item 2): when the whole pretend device stands still, as a map between wall
// time and device time. Pure: no clock of its own; callers pass wall times (CLOCK_MONOTONIC in
// the mount), never less than an earlier call's.
//
// A stall is the device's clock stopping: device time = wall time - the time stalled so far. The
// disk model works in device time (its arrivals and completions), so a stall pushes every
// completion after its start later by the part of the stall before it, and a command arriving
// during a stall starts when the stall ends. The mount's device clock (mount/device_clock.h)
// reads device_ns() and its reply scheduler waits until wall_ns() of a reply's due time.
//
// Each stall rule is a source of stall intervals [start, end) in wall time, a pure function of
// the rule, the time it was added, its seed and the interval's number k = 0, 1, ...:
//   start_k = added + at + k * period    (k = 0 only when period is 0)
//   it happens when probability >= 1 or u(seed, k, 0) < probability
//   its length is min + floor((max - min + 1) * u(seed, k, 1)) (min when min == max), or
//   unbounded (once only)
// where u(seed, k, i) is uniform in [0, 1) from a hash of (seed, k, i). A release at r ends every
// interval that contains r at r; removing the rule at r ends its interval containing r at r and
// drops the later ones. Intervals of several rules (or of one, longer than its period) overlap:
// the device is stalled during their union.
#pragma once

#include <cstdint>
#include <vector>

#include "core/clock.h"

namespace diskcond {

struct FaultRule;

// A stall that began (for counting and the log).
struct StallStart {
  uint64_t id = 0;        // the rule's
  int64_t start_ns = 0;   // wall
  int64_t length_ns = 0;  // as drawn; kNeverNs: until released
};

class StallTimeline {
 public:
  // The stall rule `id` (REQUIRES: rule.action == kStall, a seed where needs_seed()) added at
  // `now_ns`.
  void add(uint64_t id, const FaultRule& rule, int64_t now_ns);
  // Its stall containing `now_ns` ends then; no later ones. False when there is no rule `id`.
  bool remove(uint64_t id, int64_t now_ns);
  // Ends every stall in progress at `now_ns`; returns how many rules had one.
  size_t release(int64_t now_ns);
  // No rule is live and no stall goes on past the checkpoint (the latest advance()): the device
  // clock's lag is fixed from there on. Forgets rules that can stall no more.
  bool settled();

  // Device time at wall time `wall` (a time before the latest advance() reads as that).
  int64_t device_ns(int64_t wall) const;
  // The first wall time at which the device clock reads `device`; kNeverNs when a stall that
  // lasts until released comes first. A device time already past reads as the time it was reached
  // (at the latest advance() or before).
  int64_t wall_ns(int64_t device) const;
  // Whether the device is stalled at `wall`.
  bool stalled(int64_t wall) const;

  // The time stalled before the checkpoint (the latest advance()).
  int64_t stalled_by_checkpoint() const { return stalled_before_checkpoint_ns_; }

  // Moves the checkpoint to `now_ns` (nothing before it can change any more; later queries start
  // there) and returns the stalls that began by then and were not returned before, in order of
  // start.
  std::vector<StallStart> advance(int64_t now_ns);

 private:
  struct Source {
    uint64_t id = 0;
    int64_t first_ns = 0;   // start of interval 0
    int64_t period_ns = 0;  // 0: once
    int64_t min_ns = 0, max_ns = 0;
    bool unbounded = false;
    double probability = 1;
    uint64_t seed = 0;
    int64_t removed_ns = kNeverNs;
    int64_t next_report_k = 0;  // advance() has reported the intervals before this one
    // Cache of first_ending_after(): the first interval ending after cache_t is number cache_k.
    mutable int64_t cache_t = INT64_MIN;
    mutable int64_t cache_k = 0;
  };
  struct Interval {
    int64_t start = 0, end = 0;  // end kNeverNs: until released
  };
  // The length of interval k of `s` as drawn (kNeverNs: until released).
  static int64_t drawn_length(const Source& s, int64_t k);
  // Interval k of `s`, after releases and removal; false when it does not happen (or is empty).
  bool interval(const Source& s, int64_t k, Interval& out) const;
  // The earliest-starting interval of `s` that ends after `t`; false when none (within a search
  // of kMaxSearch draws).
  bool first_ending_after(const Source& s, int64_t t, Interval& out) const;
  // The union's stretch of stall that ends after `t`, from max(its start, t); false when none.
  bool next_stall(int64_t t, Interval& out) const;
  // Stalled time in [checkpoint, wall).
  int64_t stalled_since_checkpoint(int64_t wall) const;

  static constexpr int64_t kMaxSearch = 1 << 20;

  std::vector<Source> sources_;
  std::vector<int64_t> releases_;  // ascending
  int64_t checkpoint_ns_ = INT64_MIN / 4;
  int64_t stalled_before_checkpoint_ns_ = 0;
};

// Uniform in [0, 1) from (seed, k, i) alone (a hash, not a sequence): the draws of stall k.
double stall_draw(uint64_t seed, int64_t k, int i);

}  // namespace diskcond
