// SplitMix64 (Vigna's splitmix64.c), the one seeded mixer of the project: the disk model's and
// latency table's per-piece factors, fault rules' draws, rawio's offsets, the mount's hashed file
// placement. Pure; the same input gives the same output on every machine.
#pragma once

#include <cstdint>

namespace diskcond {

// SplitMix64's output for `x`: a well-mixed 64-bit value from any 64-bit input, consecutive
// inputs included.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The next value of the SplitMix64 sequence whose state is `state`, which it advances.
constexpr uint64_t splitmix64(uint64_t& state) {
  const uint64_t x = state;
  state += 0x9e3779b97f4a7c15ULL;
  return mix64(x);
}

}  // namespace diskcond
