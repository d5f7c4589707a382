// The clock frontends inject into whatever schedules against the disk model.
#pragma once

#include <time.h>

#include <cstdint>
#include <limits>

namespace diskcond {

// CLOCK_MONOTONIC now, in nanoseconds: the one reading the project's timestamps use.
inline int64_t monotonic_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// "Never": a time no clock reaches (a device clock held by a stall that lasts until released).
constexpr int64_t kNeverNs = std::numeric_limits<int64_t>::max();

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds on a monotonic clock. Thread-safe.
  virtual int64_t now_ns() const = 0;
  // A clock may stand still for a while: the mount's device clock does while its device stalls
  // (mount/device_clock.h). The wall (CLOCK_MONOTONIC) time now, and the wall time at which
  // now_ns() will read `ns` (kNeverNs while a stall of unknown length holds it; at or before now
  // when it already has). For every other clock both are the clock itself.
  virtual int64_t wall_now_ns() const { return now_ns(); }
  virtual int64_t wall_ns_when(int64_t ns) const { return ns; }
  // What now_ns() read at wall time `wall_ns` (at or before wall_now_ns()): no later than the
  // truth, and exact for every clock but a device clock while a stall may be in progress.
  virtual int64_t ns_at_wall(int64_t wall_ns) const { return wall_ns; }
};

// CLOCK_MONOTONIC: the clock FUSE replies and rawio timestamps use.
class MonotonicClock final : public Clock {
 public:
  int64_t now_ns() const override { return monotonic_now_ns(); }
};

// A clock for tests: it reads `start_ns` until a test moves it with advance().
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t start_ns = 0) : now_(start_ns) {}
  int64_t now_ns() const override { return now_; }
  // Moves time forward by `ns` (the conditioner's tests: a handler's work between its steps).
  void advance(int64_t ns) { now_ += ns; }

 private:
  int64_t now_;
};

}  // namespace diskcond
