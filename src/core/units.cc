#include "core/units.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

namespace diskcond {
namespace {

struct Quantity {
  double value;        // the number as typed, >= 0
  bool integral;       // typed without a decimal point
  uint64_t int_value;  // valid when integral
  std::string unit;    // lower-cased suffix, spaces removed
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "16.5 KiB" into 16.5 and "kib". Rejects signs, empty numbers and exponents.
std::optional<Quantity> split_quantity(std::string_view text) {
  text = trim(text);
  size_t n = 0;
  while (n < text.size() && (std::isdigit(static_cast<unsigned char>(text[n])) || text[n] == '.')) {
    ++n;
  }
  std::string_view number = text.substr(0, n);
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1) {
    return std::nullopt;
  }
  Quantity q{};
  q.integral = number.find('.') == std::string_view::npos;
  if (q.integral) {
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), q.int_value);
    if (ec != std::errc() || p != number.data() + number.size()) return std::nullopt;
    q.value = static_cast<double>(q.int_value);
  } else {
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), q.value);
    if (ec != std::errc() || p != number.data() + number.size()) return std::nullopt;
  }
  for (char c : trim(text.substr(n))) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      q.unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return q;
}

// value * multiplier as an exact whole number, or nullopt on overflow or a fraction left over.
std::optional<uint64_t> scale(const Quantity& q, uint64_t multiplier) {
  if (q.integral) {
    uint64_t out;
    if (__builtin_mul_overflow(q.int_value, multiplier, &out)) return std::nullopt;
    return out;
  }
  long double product = static_cast<long double>(q.value) * multiplier;
  if (product >= 18446744073709551615.0L) return std::nullopt;
  long double rounded = std::round(product);
  if (std::fabs(product - rounded) > 1e-6L * std::max(1.0L, rounded)) return std::nullopt;
  return static_cast<uint64_t>(rounded);
}

std::optional<uint64_t> size_multiplier(const std::string& unit) {
  if (unit.empty()) return 1;
  if (unit == "b" || unit == "s") return kSectorBytes;
  static const std::pair<char, uint64_t> kPrefixes[] = {
      {'k', kKiB}, {'m', kMiB}, {'g', kGiB}, {'t', 1024 * kGiB}};
  for (auto [prefix, mult] : kPrefixes) {
    if (unit[0] != prefix) continue;
    std::string_view rest = std::string_view(unit).substr(1);
    if (rest.empty() || rest == "b" || rest == "ib") return mult;
  }
  return std::nullopt;
}

}  // namespace

Result<uint64_t> parse_size(std::string_view text) {
  auto q = split_quantity(text);
  if (!q)
    return make_error(fmt::format("invalid size '{}' (examples: 4096, 16k, 1m, 4g, 8s)", text));
  auto mult = size_multiplier(q->unit);
  if (!mult) {
    return make_error(fmt::format(
        "invalid size unit in '{}' (use k, m, g, t, or s/b for 512-byte sectors)", text));
  }
  auto bytes = scale(*q, *mult);
  if (!bytes)
    return make_error(
        fmt::format("size '{}' is out of range or not a whole number of bytes", text));
  return *bytes;
}

Result<int64_t> parse_time_ns(std::string_view text, TimeUnit plain_unit) {
  auto q = split_quantity(text);
  if (!q) return make_error(fmt::format("invalid time '{}' (examples: 100us, 5ms, 8s)", text));
  uint64_t mult = 1;
  if (q->unit.empty()) {
    switch (plain_unit) {
      case TimeUnit::kNanoseconds:
        mult = 1;
        break;
      case TimeUnit::kMicroseconds:
        mult = kNsPerUs;
        break;
      case TimeUnit::kMilliseconds:
        mult = kNsPerMs;
        break;
      case TimeUnit::kSeconds:
        mult = kNsPerSec;
        break;
    }
  } else if (q->unit == "ns") {
    mult = 1;
  } else if (q->unit == "us" || q->unit == "\xc2\xb5s") {
    mult = kNsPerUs;
  } else if (q->unit == "ms") {
    mult = kNsPerMs;
  } else if (q->unit == "s" || q->unit == "sec") {
    mult = kNsPerSec;
  } else {
    return make_error(fmt::format("invalid time unit in '{}' (use ns, us, ms or s)", text));
  }
  auto ns = scale(*q, mult);
  if (!ns || *ns > static_cast<uint64_t>(INT64_MAX)) {
    return make_error(fmt::format("time '{}' is out of range or finer than a nanosecond", text));
  }
  return static_cast<int64_t>(*ns);
}

Result<uint64_t> parse_rate(std::string_view text) {
  auto q = split_quantity(text);
  if (!q)
    return make_error(
        fmt::format("invalid rate '{}' (examples: 50MB/s, 1.5GB/s, 0 for unlimited)", text));
  std::string unit = q->unit;
  if (unit.empty()) unit = "mb/s";
  std::optional<uint64_t> mult;
  if (unit.size() > 2 && unit.ends_with("/s")) {
    std::string prefix = unit.substr(0, unit.size() - 2);
    if (prefix == "b") {
      mult = 1;  // bytes, not sectors, in a rate
    } else if (prefix != "s") {
      mult = size_multiplier(prefix);
    }
  }
  if (!mult)
    return make_error(fmt::format(
        "invalid rate unit in '{}' (use B/s, KB/s, MB/s or GB/s; MB = 2^20 bytes)", text));
  auto rate = scale(*q, *mult);
  if (!rate)
    return make_error(
        fmt::format("rate '{}' is out of range or not a whole number of bytes per second", text));
  return *rate;
}

std::string format_size(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  uint64_t v = bytes;
  while (unit < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", v, kUnits[unit]);
}

std::string format_rate_mb(uint64_t bytes_per_sec) {
  if (bytes_per_sec == 0) return "0 MB/s (unlimited)";
  if (bytes_per_sec % kMiB == 0) return fmt::format("{} MB/s", bytes_per_sec / kMiB);
  return fmt::format("{:.3g} MB/s", static_cast<double>(bytes_per_sec) / kMiB);
}

}  // namespace diskcond
