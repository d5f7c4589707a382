// The bucket layout of the project's log-linear histograms (rawio's latencies, the daemon's reply
// lateness): values below 2^(bits+1) get a bucket each; above, every power of two is split into
// 2^bits equal sub-buckets, so a bucket spans less than 1/2^bits of the values in it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace diskcond {

// Buckets needed for every uint64_t value with `bits` sub-bucket bits.
constexpr size_t log_linear_bucket_count(int bits) {
  return static_cast<size_t>(64 - bits + 1) << bits;
}

// The bucket holding `value`.
inline size_t log_linear_bucket(uint64_t value, int bits) {
  const uint64_t sub_buckets = uint64_t{1} << bits;
  if (value < 2 * sub_buckets) return static_cast<size_t>(value);
  const int msb = 63 - __builtin_clzll(value);
  const int error_bits = msb - bits;
  const uint64_t base = static_cast<uint64_t>(error_bits + 1) << bits;
  return static_cast<size_t>(base + ((value >> error_bits) & (sub_buckets - 1)));
}

// The smallest value of bucket `index`, and the bucket's width.
inline uint64_t log_linear_bucket_lower(size_t index, int bits) {
  const uint64_t sub_buckets = uint64_t{1} << bits;
  if (index < 2 * sub_buckets) return index;
  const uint64_t error_bits = index / sub_buckets - 1;
  return (sub_buckets + index % sub_buckets) << error_bits;
}
inline uint64_t log_linear_bucket_width(size_t index, int bits) {
  const uint64_t sub_buckets = uint64_t{1} << bits;
  if (index < 2 * sub_buckets) return 1;
  return uint64_t{1} << (index / sub_buckets - 1);
}

}  // namespace diskcond
