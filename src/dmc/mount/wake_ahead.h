// How early the reply thread asks to wake before a reply is due, learned per wait length.
//
// A timed wait returns some time after its deadline, and on a VM that overshoot grows with how
// long the CPU slept (measured here: a bare clock_nanosleep is 28 us late after 0.6 ms and 45 us
// after 3 ms). One average over every wait then wakes too late for long waits and spins too long
// for short ones, and with a mix of service times (a latency tail or table) the replies of the
// long ones leave late. So the compensation is kept per band of wait length: waits under 100 us,
// then one band per doubling up to 6.4 ms and one above. Each band's value follows the overshoot
// its own waits showed (each clamped to [0, cap]), up by a quarter of the difference after a
// longer one and down by a sixteenth after a shorter one, so it settles above their mean: fewer
// replies wait for a late wake-up, for a little more spinning (docs/benchmarks.md, 2026-12-05).
//
// Pure: no clock, no lock (the ReplyScheduler calls it under its mutex).
#pragma once

#include <array>
#include <cstdint>

namespace diskcond::mount {

class WakeAhead {
 public:
  static constexpr int kBands = 8;
  static constexpr int64_t kFirstBandNs = 100'000;  // band 0: waits shorter than this

  explicit WakeAhead(int64_t cap_ns) : cap_ns_(cap_ns) {}

  // The band of a wait of `wait_ns` (0 .. kBands - 1).
  static int band(int64_t wait_ns);
  // How long before the due time a wait of `wait_ns` should end.
  int64_t ahead_ns(int64_t wait_ns) const { return ahead_[band(wait_ns)]; }
  // A wait of `wait_ns` (the whole time to the due time when the wait began) ended `late_ns`
  // after the deadline it asked for.
  void learn(int64_t wait_ns, int64_t late_ns);
  // The band's value used last (for status).
  int64_t last_ns() const { return ahead_[last_band_]; }

 private:
  int64_t cap_ns_;
  std::array<int64_t, kBands> ahead_{};
  int last_band_ = 0;
};

}  // namespace diskcond::mount
