#include "dmc/cli/configure_values.h"

#include <fmt/format.h>

#include <charconv>

#include "core/units.h"

namespace diskcond::dmc {
namespace {

Status check_throughput(uint64_t bytes_per_sec, std::string_view field, std::string_view word) {
  if (bytes_per_sec > kMaxThroughputBytesPerSec) {
    return make_error(fmt::format("{} '{}' is too large (at most {} MB/s; 0 = unlimited)", field, word,
                                  kMaxThroughputBytesPerSec / kMiB));
  }
  return ok_status();
}

Result<uint64_t> parse_command_bytes(std::string_view text, std::string_view field) {
  auto bytes = parse_size(text);
  if (!bytes.ok()) return make_error(fmt::format("{}: {}", field, bytes.error()));
  if (*bytes != 0 && (*bytes < kSectorBytes || *bytes > 1024 * kGiB)) {
    return make_error(fmt::format("{} '{}' is out of range (0 = no limit, else 512 bytes to 1 TiB)", field, text));
  }
  return *bytes;
}

}  // namespace

Profile type_defaults(DiskType type) {
  Profile p;
  p.name = std::string(kCustomProfileName);
  p.type = type;
  p.queue_depth = 32;
  p.max_read_bytes = p.max_write_bytes = (type == DiskType::kHDD ? 16 : 32) * kMiB;
  p.max_read_segments = p.max_write_segments = 128;
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
  auto type = parse_disk_type(words[0]);
  if (!type.ok()) return make_error(type.error());
  Profile p = type_defaults(*type);

  auto access = parse_time_ns(words[1], TimeUnit::kMicroseconds);
  if (!access.ok()) return make_error(fmt::format("access_time: {}", access.error()));
  if (*access > 60 * kNsPerSec) {
    return make_error(fmt::format("access_time '{}' is out of range (0 to 60 s)", words[1]));
  }
  p.access_time_ns = *access;

  auto read = parse_rate(words[2]);
  if (!read.ok()) return make_error(fmt::format("read_throughput: {}", read.error()));
  if (Status s = check_throughput(*read, "read_throughput", words[2]); !s.ok()) return make_error(s.error());
  p.read_bytes_per_sec = *read;

  auto write = parse_rate(words[3]);
  if (!write.ok()) return make_error(fmt::format("write_throughput: {}", write.error()));
  if (Status s = check_throughput(*write, "write_throughput", words[3]); !s.ok()) return make_error(s.error());
  p.write_bytes_per_sec = *write;

  if (words.size() > 4) {
    auto depth = parse_count(words[4], "ioqueue_depth", 1, 65536);
    if (!depth.ok()) return make_error(depth.error());
    p.queue_depth = *depth;
  }
  if (words.size() > 5) {
    auto bytes = parse_command_bytes(words[5], "maxreadcnt");
    if (!bytes.ok()) return make_error(bytes.error());
    p.max_read_bytes = *bytes;
  }
  if (words.size() > 6) {
    auto bytes = parse_command_bytes(words[6], "maxwritecnt");
    if (!bytes.ok()) return make_error(bytes.error());
    p.max_write_bytes = *bytes;
  }
  if (words.size() > 7) {
    auto segments = parse_count(words[7], "segreadcnt", 0, 65536);
    if (!segments.ok()) return make_error(segments.error());
    p.max_read_segments = *segments;
  }
  if (words.size() > 8) {
    auto segments = parse_count(words[8], "segwritecnt", 0, 65536);
    if (!segments.ok()) return make_error(segments.error());
    p.max_write_segments = *segments;
  }
  if (Status s = validate(p); !s.ok()) return make_error(s.error());
  return p;
}

}  // namespace diskcond::dmc
