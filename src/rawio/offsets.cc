#include "rawio/offsets.h"

#include "core/splitmix64.h"

namespace diskcond::rawio {
namespace {

uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

Random64::Random64(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

uint64_t Random64::next() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t Random64::below(uint64_t bound) {
  unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < bound) {
    uint64_t threshold = -bound % bound;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next()) * bound;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

uint64_t worker_share(uint64_t count, unsigned workers, unsigned worker) {
  return count / workers + (worker < count % workers ? 1 : 0);
}

OffsetGenerator::OffsetGenerator(bool random, uint64_t area_bytes, uint32_t transfer_bytes,
                                 unsigned workers, unsigned worker, uint64_t seed)
    : random_(random), rng_(seed * 0x100000001b3ull + worker), transfer_(transfer_bytes) {
  uint64_t area_slots = area_bytes / transfer_bytes;
  if (random) {
    slots_ = area_slots;
  } else {
    slots_ = area_slots / workers;
    first_ = static_cast<uint64_t>(worker) * slots_ * transfer_bytes;
  }
  if (slots_ == 0) slots_ = 1;
}

}  // namespace diskcond::rawio
