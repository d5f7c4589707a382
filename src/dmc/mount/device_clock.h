// The pretend device's clock (issue 15, item 2): wall time (CLOCK_MONOTONIC) less the time the
// device has stood still in stalls (core/stall_timeline.h, kept by the mount's FaultRules). The
// Conditioner and the ReplyScheduler run on it: the model's arrivals and completions are device
// times, and a reply due at device time t goes out at wall_ns_when(t), so a stall pushes every
// reply due after its start later, and one that lasts until released holds them until
// `dmc fault release`. A FUSE worker still never waits.
//
// A read racing with the addition of a stall that starts at once may still take the fast path and
// return a device time up to that race's length later than the stall's start; the model treats
// the next, earlier arrival as arriving with it (DiskModel::submit), so time never runs backwards
// inside the model.
//
// Cost without a stall rule: one relaxed load of the rules' fixed lag (0 until a stall has
// happened) and one of the attached rules, on top of the wall clock's read. With one, the rules'
// mutex.
#pragma once

#include <atomic>

#include "core/clock.h"
#include "core/fault_rules.h"

namespace diskcond::mount {

class DeviceClock final : public Clock {
 public:
  explicit DeviceClock(const Clock& wall) : wall_(wall) {}
  // The rules whose stalls stop this clock; until then it is the wall clock. REQUIRES: called
  // before any request is served; `faults` outlives this clock's use.
  void attach(FaultRules& faults) { faults_.store(&faults, std::memory_order_release); }

  int64_t now_ns() const override {
    FaultRules* faults = faults_.load(std::memory_order_acquire);
    if (faults == nullptr) return wall_.now_ns();
    const int64_t lag = faults->fixed_lag_ns();
    if (lag != FaultRules::kStallsLive) return wall_.now_ns() - lag;
    return faults->device_ns(wall_.now_ns());
  }
  int64_t wall_now_ns() const override { return wall_.now_ns(); }
  // Exact on the fast path (the lag is fixed). With stalls live the device time of a past wall
  // time is not kept: the device's time now less the wall time since, from one wall reading, which
  // is earlier than the truth by any stall in between.
  int64_t ns_at_wall(int64_t wall_ns) const override {
    FaultRules* faults = faults_.load(std::memory_order_acquire);
    if (faults == nullptr) return wall_ns;
    const int64_t lag = faults->fixed_lag_ns();
    if (lag != FaultRules::kStallsLive) return wall_ns - lag;
    const int64_t wall = wall_.now_ns();
    return faults->device_ns(wall) - (wall - wall_ns);
  }
  int64_t wall_ns_when(int64_t ns) const override {
    FaultRules* faults = faults_.load(std::memory_order_acquire);
    if (faults == nullptr) return ns;
    const int64_t lag = faults->fixed_lag_ns();
    if (lag != FaultRules::kStallsLive) return ns + lag;
    return faults->wall_ns(ns);
  }

 private:
  const Clock& wall_;
  std::atomic<FaultRules*> faults_{nullptr};
};

}  // namespace diskcond::mount
