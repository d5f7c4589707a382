// Where each worker's transfers go.
//
// Sequential tests give worker w of N the contiguous slice [w * slice, (w + 1) * slice) of the
// area, slice = (area / transfer / N) transfers, walked in order and wrapped if the worker's share
// is larger than its slice. Random tests draw uniform, transfer-aligned offsets over the whole area
// from a xoshiro256** generator seeded from (seed, worker): the same seed gives the same offsets.
#pragma once

#include <cstdint>

namespace diskcond::rawio {

// xoshiro256**, seeded through splitmix64. Small, fast and reproducible across platforms.
class Random64 {
 public:
  explicit Random64(uint64_t seed);
  uint64_t next();
  // Uniform in [0, bound), bound > 0, without modulo bias (Lemire's method).
  uint64_t below(uint64_t bound);

 private:
  uint64_t s_[4];
};

// How many transfers of a test's total the given worker does: count / workers, plus one for the
// first count % workers workers (as the original divides records among its processes).
uint64_t worker_share(uint64_t count, unsigned workers, unsigned worker);

class OffsetGenerator {
 public:
  // REQUIRES: transfer_bytes > 0, area_bytes >= transfer_bytes * workers for sequential tests,
  // area_bytes >= transfer_bytes for random ones, worker < workers.
  OffsetGenerator(bool random, uint64_t area_bytes, uint32_t transfer_bytes, unsigned workers,
                  unsigned worker, uint64_t seed);

  // Byte offset of the next transfer: a multiple of transfer_bytes, inside the area.
  uint64_t next() {
    if (random_) return rng_.below(slots_) * transfer_;
    uint64_t offset = first_ + position_ * transfer_;
    if (++position_ == slots_) position_ = 0;
    return offset;
  }

 private:
  bool random_;
  Random64 rng_;
  uint64_t transfer_;
  uint64_t slots_;      // transfers in the walkable range
  uint64_t first_ = 0;  // start of this worker's slice (sequential)
  uint64_t position_ = 0;
};

}  // namespace diskcond::rawio
