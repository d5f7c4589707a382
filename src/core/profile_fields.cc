#include "core/profile_fields.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <limits>

namespace diskcond {
namespace {

constexpr int64_t kMaxTime = 60 * kNsPerSec;
constexpr int64_t kMaxCommandBytes = 1024 * static_cast<int64_t>(kGiB);
constexpr int64_t kMaxRate = int64_t{1} << 40;  // 1 TiB/s: more is a typo
constexpr int64_t kMaxQueue = 65536;
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxTailMilli = 1'000'000;  // a p99 1000x the median
constexpr int64_t kMaxSeed = std::numeric_limits<uint32_t>::max();
constexpr int64_t kMaxCapacity = int64_t{1} << 60;  // 1 EiB

// The defaults are those of the built-in 5400/7200 HDDs and SATA SSDs (docs/profiles.md).
const std::array<ProfileField, 13> kFields = {{
    {.key = "access_time",
     .name = "access time",
     .label = "Access time",
     .configure_word = "access_time",
     .configure_required = true,
     .configure_help = "microseconds, or with a unit: 100us, 8ms",
     .member = &Profile::access_time_ns,
     .kind = FieldKind::kTime,
     .text_unit = TimeUnit::kMicroseconds,
     .json_unit = TimeUnit::kMicroseconds,
     .max = kMaxTime,
     .range_text = "0 to 60 s",
     .required_in_file = true},
    {.key = "read_throughput",
     .name = "read throughput",
     .label = "Read throughput",
     .configure_word = "read_throughput",
     .configure_required = true,
     .configure_help = "MB/s (1 MB = 2^20 bytes), or with a unit: 1.5GB/s; 0 = unlimited",
     .member = &Profile::read_bytes_per_sec,
     .kind = FieldKind::kRate,
     .max = kMaxRate,
     .range_text = "0 (unlimited) to 1048576 MB/s",
     .required_in_file = true},
    {.key = "write_throughput",
     .name = "write throughput",
     .label = "Write throughput",
     .configure_word = "write_throughput",
     .configure_required = true,
     .configure_help = "as read_throughput",
     .member = &Profile::write_bytes_per_sec,
     .kind = FieldKind::kRate,
     .max = kMaxRate,
     .range_text = "0 (unlimited) to 1048576 MB/s",
     .required_in_file = true},
    {.key = "io_queue_depth",
     .old_key = "queue_depth",
     .name = "queue depth",
     .label = "I/O Queue Depth",
     .configure_word = "ioqueue_depth",
     .configure_help = "commands in service at once, 1 to 65536 (default 32)",
     .member = &Profile::queue_depth,
     .kind = FieldKind::kCount,
     .min = 1,
     .max = kMaxQueue,
     .range_text = "1 to 65536",
     .default_hdd = 32,
     .default_ssd = 32},
    {.key = "max_read_bytes",
     .name = "max read bytes",
     .label = "Max Read Bytes",
     .configure_word = "maxreadcnt",
     .configure_help = "largest read command in bytes, or with a unit: 16m; 0 = no limit\n"
                       "(default 16 MiB for HDD, 32 MiB for SSD)",
     .member = &Profile::max_read_bytes,
     .kind = FieldKind::kBytes,
     .min = kSectorBytes,
     .max = kMaxCommandBytes,
     .zero_means_none = true,
     .range_text = "0 = no limit, else 512 bytes to 1 TiB",
     .default_hdd = 16 * kMiB,
     .default_ssd = 32 * kMiB},
    {.key = "max_write_bytes",
     .name = "max write bytes",
     .label = "Max Write Bytes",
     .configure_word = "maxwritecnt",
     .configure_help = "as maxreadcnt, for writes",
     .member = &Profile::max_write_bytes,
     .kind = FieldKind::kBytes,
     .min = kSectorBytes,
     .max = kMaxCommandBytes,
     .zero_means_none = true,
     .range_text = "0 = no limit, else 512 bytes to 1 TiB",
     .default_hdd = 16 * kMiB,
     .default_ssd = 32 * kMiB},
    {.key = "max_read_segments",
     .name = "max read segments",
     .label = "Max Read Segments",
     .configure_word = "segreadcnt",
     .configure_help = "max segments per read command, 0 to 65536 (default 128)",
     .member = &Profile::max_read_segments,
     .kind = FieldKind::kCount,
     .max = kMaxQueue,
     .range_text = "0 to 65536",
     .default_hdd = 128,
     .default_ssd = 128},
    {.key = "max_write_segments",
     .name = "max write segments",
     .label = "Max Write Segments",
     .configure_word = "segwritecnt",
     .configure_help = "as segreadcnt, for writes",
     .member = &Profile::max_write_segments,
     .kind = FieldKind::kCount,
     .max = kMaxQueue,
     .range_text = "0 to 65536",
     .default_hdd = 128,
     .default_ssd = 128},
    // HDD only; `dmc show` prints both in one " Spin-up: ..." line (text_format.cc).
    {.key = "spinup_idle",
     .name = "spin-up idle time",
     .member = &Profile::spinup_idle_ns,
     .kind = FieldKind::kTime,
     .text_unit = TimeUnit::kSeconds,
     .max = kNever,
     .range_text = "0 or more",
     .required_in_json = false},
    {.key = "spinup_time",
     .name = "spin-up time",
     .member = &Profile::spinup_ns,
     .kind = FieldKind::kTime,
     .text_unit = TimeUnit::kSeconds,
     .max = kMaxTime,
     .range_text = "0 to 60 s",
     .required_in_json = false},
    // Off in every default; `dmc show` prints both in one " Latency tail: ..." line.
    {.key = "latency_tail",
     .name = "latency tail",
     .member = &Profile::latency_tail_milli,
     .kind = FieldKind::kRatio,
     .min = 1000,
     .max = kMaxTailMilli,
     .zero_means_none = true,
     .range_text = "0 = none, else 1 to 1000 (p99 over the median)",
     .required_in_json = false},
    {.key = "latency_seed",
     .name = "latency seed",
     .member = &Profile::latency_seed,
     .kind = FieldKind::kCount,
     .max = kMaxSeed,
     .range_text = "0 to 4294967295",
     .required_in_json = false},
    // `dmc show` prints it as " Capacity: ..." when set.
    {.key = "capacity_bytes",
     .name = "capacity",
     .member = &Profile::capacity_bytes,
     .kind = FieldKind::kBytes,
     .min = static_cast<int64_t>(kMiB),
     .max = kMaxCapacity,
     .zero_means_none = true,
     .range_text = "0 = the backing file system's, else 1 MiB to 1 EiB",
     .required_in_json = false},
}};

std::string_view json_suffix(const ProfileField& field) {
  switch (field.kind) {
    case FieldKind::kTime:
      return field.json_unit == TimeUnit::kMicroseconds ? "_us" : "_ns";
    case FieldKind::kRate:
      return "_bytes_per_sec";
    case FieldKind::kBytes:
      break;  // the key says bytes
    case FieldKind::kCount:
      break;
    case FieldKind::kRatio:
      break;
  }
  return "";
}

std::string_view value_unit(FieldKind kind) {
  switch (kind) {
    case FieldKind::kTime:
      return " ns";
    case FieldKind::kRate:
      return " bytes/s";
    case FieldKind::kBytes:
      return " bytes";
    case FieldKind::kCount:
      break;
    case FieldKind::kRatio:
      break;  // out_of_range() shows the ratio itself
  }
  return "";
}

// "4", "2.5" or "4x" -> thousandths, rounded; at most three decimals.
Result<uint64_t> parse_ratio_milli(std::string_view text, std::string_view as) {
  std::string_view digits = text;
  if (!digits.empty() && (digits.back() == 'x' || digits.back() == 'X')) digits.remove_suffix(1);
  auto invalid = [&] {
    return make_error(fmt::format("invalid {} '{}' (a ratio such as 4 or 2.5)", as, text));
  };
  if (digits.empty() || digits[0] == '-' || digits[0] == '+') return invalid();
  uint64_t whole = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), whole);
  if (ec == std::errc::result_out_of_range || whole > std::numeric_limits<uint32_t>::max()) {
    return make_error(fmt::format("{} '{}' is out of range", as, text));
  }
  if (ec != std::errc()) return invalid();
  uint64_t milli = whole * 1000;
  std::string_view rest(end, static_cast<size_t>(digits.data() + digits.size() - end));
  if (rest.empty()) return milli;
  if (rest[0] != '.' || rest.size() < 2 || rest.size() > 4) return invalid();
  uint64_t scale = 100;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9') return invalid();
    milli += static_cast<uint64_t>(c - '0') * scale;
    scale /= 10;
  }
  return milli;
}

// The text as users type it, in the field's unit; an error says what is wrong with `text`.
Result<uint64_t> parse_text(const ProfileField& field, std::string_view text, std::string_view as) {
  auto named = [&](auto parsed) -> Result<uint64_t> {
    if (!parsed.ok()) return make_error(fmt::format("{}: {}", as, parsed.error()));
    return static_cast<uint64_t>(*parsed);
  };
  switch (field.kind) {
    case FieldKind::kTime:
      return named(parse_time_ns(text, field.text_unit));
    case FieldKind::kRate:
      return named(parse_rate(text));
    case FieldKind::kBytes:
      return named(parse_size(text));
    case FieldKind::kCount:
      break;
    case FieldKind::kRatio:
      return parse_ratio_milli(text, as);
  }
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  bool digits_only =
      !text.empty() && end == text.data() + text.size() && text[0] != '-' && text[0] != '+';
  if (ec == std::errc::result_out_of_range) {
    return make_error(fmt::format("{} '{}' is out of range ({})", as, text, field.range_text));
  }
  if (!digits_only || ec != std::errc()) {
    return make_error(fmt::format("invalid {} '{}' (a whole number from {} to {})", as, text,
                                  field.min, field.max));
  }
  return v;
}

}  // namespace

std::span<const ProfileField> profile_fields() {
  return kFields;
}

const ProfileField* find_profile_field(std::string_view key) {
  for (const ProfileField& f : kFields) {
    if (f.key == key || (!f.old_key.empty() && f.old_key == key)) return &f;
  }
  return nullptr;
}

std::string json_key(const ProfileField& field) {
  return std::string(field.key) + std::string(json_suffix(field));
}

int64_t json_divisor(const ProfileField& field) {
  if (field.kind == FieldKind::kRatio) return 1000;
  if (field.kind == FieldKind::kTime && field.json_unit == TimeUnit::kMicroseconds) return kNsPerUs;
  return 1;
}

void set_field(const ProfileField& field, Profile& profile, int64_t value) {
  std::visit(
      [&](auto member) {
        profile.*member = static_cast<std::remove_reference_t<decltype(profile.*member)>>(value);
      },
      field.member);
}

Result<int64_t> parse_field_text(const ProfileField& field, std::string_view text,
                                 std::string_view as) {
  auto value = parse_text(field, text, as);
  if (!value.ok()) return make_error(value.error());
  if (!in_range(field, *value)) {
    return make_error(fmt::format("{} '{}' is out of range ({})", as, text, field.range_text));
  }
  return static_cast<int64_t>(*value);
}

Status out_of_range(const ProfileField& field, const std::string& value) {
  if (field.kind == FieldKind::kRatio) {  // thousandths in memory, a ratio to the user
    int64_t milli = 0;
    std::from_chars(value.data(), value.data() + value.size(), milli);
    return make_error(fmt::format("{} {:g} is out of range ({})", field.name,
                                  static_cast<double>(milli) / 1000, field.range_text));
  }
  return make_error(fmt::format("{} {}{} is out of range ({})", field.name, value,
                                value_unit(field.kind), field.range_text));
}

Status check_field(const ProfileField& field, const Profile& profile) {
  return visit_field(field, profile, [&](auto value) { return check_value(field, value); });
}

}  // namespace diskcond
