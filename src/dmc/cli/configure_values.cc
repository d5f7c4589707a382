#include "dmc/cli/configure_values.h"

#include <fmt/format.h>

#include <charconv>
#include <functional>
#include <iterator>

#include "core/units.h"

namespace diskcond::dmc {
namespace {

// A plain number is microseconds; at most 60 s.
Result<int64_t> parse_access_time(std::string_view word) {
  auto ns = parse_time_ns(word, TimeUnit::kMicroseconds);
  if (!ns.ok()) return make_error(fmt::format("access_time: {}", ns.error()));
  if (*ns > 60 * kNsPerSec) return make_error(fmt::format("access_time '{}' is out of range (0 to 60 s)", word));
  return *ns;
}

// A plain number is MB/s (2^20 bytes); 0 = unlimited; at most kMaxThroughputBytesPerSec.
Result<uint64_t> parse_throughput(std::string_view word, std::string_view field) {
  auto rate = parse_rate(word);
  if (!rate.ok()) return make_error(fmt::format("{}: {}", field, rate.error()));
  if (*rate > kMaxThroughputBytesPerSec) {
    return make_error(fmt::format("{} '{}' is too large (at most {} MB/s; 0 = unlimited)", field, word,
                                  kMaxThroughputBytesPerSec / kMiB));
  }
  return *rate;
}

// Bytes per command: 0 = no limit, else 512 bytes to 1 TiB.
Result<uint64_t> parse_command_bytes(std::string_view word, std::string_view field) {
  auto bytes = parse_size(word);
  if (!bytes.ok()) return make_error(fmt::format("{}: {}", field, bytes.error()));
  if (*bytes != 0 && (*bytes < kSectorBytes || *bytes > 1024 * kGiB)) {
    return make_error(fmt::format("{} '{}' is out of range (0 = no limit, else 512 bytes to 1 TiB)", field, word));
  }
  return *bytes;
}

template <class T, class Field>
Status assign(Result<T> parsed, Field& out) {
  if (!parsed.ok()) return make_error(parsed.error());
  out = static_cast<Field>(*parsed);
  return ok_status();
}

}  // namespace

Profile type_defaults(DiskType type) {
  Profile p = profile_defaults(type);
  p.name = std::string(kCustomProfileName);
  return p;
}

Result<uint32_t> parse_count(std::string_view text, std::string_view field, uint32_t min, uint32_t max) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  bool digits_only = !text.empty() && end == text.data() + text.size() && text[0] != '-' && text[0] != '+';
  if (!digits_only || ec != std::errc()) {
    if (ec == std::errc::result_out_of_range) {
      return make_error(fmt::format("{} '{}' is out of range ({} to {})", field, text, min, max));
    }
    return make_error(fmt::format("invalid {} '{}' (a whole number from {} to {})", field, text, min, max));
  }
  if (v < min || v > max) return make_error(fmt::format("{} '{}' is out of range ({} to {})", field, text, min, max));
  return static_cast<uint32_t>(v);
}

Result<Profile> parse_configure_values(std::span<const std::string> words) {
  if (words.size() < kConfigureMinValues || words.size() > kConfigureMaxValues) {
    return make_error(fmt::format("configure takes {} to {} values after <mount>, not {}", kConfigureMinValues,
                                  kConfigureMaxValues, words.size()));
  }
  auto type = parse_disk_type(words[0]);
  if (!type.ok()) return make_error(type.error());
  Profile p = type_defaults(*type);
  // The fields after <type>, in macOS's order; each runs only when its word was given.
  const std::function<Status(std::string_view)> fields[] = {
      [&](std::string_view w) { return assign(parse_access_time(w), p.access_time_ns); },
      [&](std::string_view w) { return assign(parse_throughput(w, "read_throughput"), p.read_bytes_per_sec); },
      [&](std::string_view w) { return assign(parse_throughput(w, "write_throughput"), p.write_bytes_per_sec); },
      [&](std::string_view w) { return assign(parse_count(w, "ioqueue_depth", 1, 65536), p.queue_depth); },
      [&](std::string_view w) { return assign(parse_command_bytes(w, "maxreadcnt"), p.max_read_bytes); },
      [&](std::string_view w) { return assign(parse_command_bytes(w, "maxwritecnt"), p.max_write_bytes); },
      [&](std::string_view w) { return assign(parse_count(w, "segreadcnt", 0, 65536), p.max_read_segments); },
      [&](std::string_view w) { return assign(parse_count(w, "segwritecnt", 0, 65536), p.max_write_segments); },
  };
  static_assert(std::size(fields) == kConfigureMaxValues - 1);
  for (size_t i = 1; i < words.size(); ++i) {
    if (Status s = fields[i - 1](words[i]); !s.ok()) return make_error(s.error());
  }
  if (Status s = validate(p); !s.ok()) return make_error(s.error());
  return p;
}

}  // namespace diskcond::dmc
