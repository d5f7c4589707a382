// Parsing and printing of sizes, times and rates as users type them.
//
// Sizes are binary: k = 2^10, m = 2^20, g = 2^30, t = 2^40 ("k", "kb", "kib" all mean 1024).
// A "b" or "s" suffix counts 512-byte sectors, as in the original rawio ("8s" = 4096 bytes).
// Rates follow macOS dmc: "MB/s" and "MiB/s" both mean 2^20 bytes per second.
// Times: "ns", "us", "ms", "s"; a plain number takes the caller's default unit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace diskcond {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;
constexpr uint64_t kSectorBytes = 512;

constexpr int64_t kNsPerUs = 1000;
constexpr int64_t kNsPerMs = 1000 * kNsPerUs;
constexpr int64_t kNsPerSec = 1000 * kNsPerMs;

// "16k" -> 16384, "8s" -> 4096, "4096" -> 4096. Errors name the text.
Result<uint64_t> parse_size(std::string_view text);

enum class TimeUnit { kNanoseconds, kMicroseconds, kMilliseconds, kSeconds };
// "52222us", "1.5ms", "8s"; a plain number is in `plain_unit`. Returns nanoseconds.
Result<int64_t> parse_time_ns(std::string_view text, TimeUnit plain_unit);

// "50MB/s", "1.5GiB/s", "800KB/s", "0"; a plain number is in MB/s (2^20 bytes, as dmc).
// Returns bytes per second; 0 means unlimited.
Result<uint64_t> parse_rate(std::string_view text);

// 16384 -> "16 KiB", 1048576 -> "1 MiB", 1000 -> "1000 B".
std::string format_size(uint64_t bytes);
// Bytes per second as dmc prints them: whole MB/s (2^20), e.g. "50 MB/s", "0 MB/s (unlimited)".
std::string format_rate_mb(uint64_t bytes_per_sec);

}  // namespace diskcond
