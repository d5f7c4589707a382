#include "dmc/mount/wake_ahead.h"

#include <algorithm>

namespace diskcond::mount {

int WakeAhead::band(int64_t wait_ns) {
  int b = 0;
  for (int64_t edge = kFirstBandNs; wait_ns >= edge && b < kBands - 1; edge *= 2) ++b;
  return b;
}

void WakeAhead::learn(int64_t wait_ns, int64_t late_ns) {
  const int b = band(wait_ns);
  const int64_t late = std::clamp<int64_t>(late_ns, 0, cap_ns_);
  // Up by a quarter of a longer overshoot, down by a sixteenth of a shorter one: the band settles
  // above the mean overshoot (where late wake-ups weigh four times early ones), so fewer replies
  // wait for a late wake-up and the spin is a little longer.
  ahead_[b] += late > ahead_[b] ? (late - ahead_[b]) / 4 : -((ahead_[b] - late) / 16);
  last_band_ = b;
}

}  // namespace diskcond::mount
