// The clock frontends inject into whatever schedules against the disk model.
#pragma once

#include <time.h>

#include <cstdint>

namespace diskcond {

// CLOCK_MONOTONIC now, in nanoseconds: the one reading the project's timestamps use.
inline int64_t monotonic_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds on a monotonic clock. Thread-safe.
  virtual int64_t now_ns() const = 0;
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
