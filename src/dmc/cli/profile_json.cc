#include "dmc/cli/profile_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/units.h"

namespace diskcond::dmc {
namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kKeys[] = {
    "name", "type", "access_time_us", "read_throughput_bytes_per_sec", "write_throughput_bytes_per_sec",
    "io_queue_depth", "max_read_bytes", "max_write_bytes", "max_read_segments", "max_write_segments",
    "spinup_idle_ns", "spinup_time_ns"};

const json* find_key(const json& object, std::string_view key, bool required, Status& status) {
  auto it = object.find(std::string(key));
  if (it == object.end()) {
    if (required && status.ok()) status = make_error(fmt::format("missing key '{}'", key));
    return nullptr;
  }
  return &*it;
}

// Reads an unsigned whole number no larger than `max` into `out`.
template <class T>
void read_unsigned(const json& object, std::string_view key, bool required, uint64_t max, T& out,
                   Status& status) {
  const json* v = find_key(object, key, required, status);
  if (v == nullptr || !status.ok()) return;
  bool whole = v->is_number_unsigned() || (v->is_number_integer() && v->get<int64_t>() >= 0);
  if (!whole || v->get<uint64_t>() > max) {
    status = make_error(fmt::format("'{}' must be a whole number from 0 to {}", key, max));
    return;
  }
  out = static_cast<T>(v->get<uint64_t>());
}

// Access time in microseconds as a JSON number (integer when whole).
json access_time_us_json(int64_t access_time_ns) {
  if (access_time_ns % kNsPerUs == 0) return access_time_ns / kNsPerUs;
  return static_cast<double>(access_time_ns) / kNsPerUs;
}

void read_name(const json& object, std::string& out, Status& status) {
  const json* v = find_key(object, "name", true, status);
  if (v == nullptr || !status.ok()) return;
  if (!v->is_string()) {
    status = make_error("'name' must be a string");
    return;
  }
  out = v->get<std::string>();
}

void read_type(const json& object, DiskType& out, Status& status) {
  const json* v = find_key(object, "type", true, status);
  if (v == nullptr || !status.ok()) return;
  if (!v->is_string()) {
    status = make_error("'type' must be \"SSD\" or \"HDD\"");
    return;
  }
  auto parsed = parse_disk_type(v->get<std::string>());
  if (!parsed.ok()) {
    status = make_error(parsed.error());
    return;
  }
  out = *parsed;
}

// access_time_us: microseconds, possibly fractional, at most 60 s.
void read_access_time(const json& object, int64_t& out_ns, Status& status) {
  const json* v = find_key(object, "access_time_us", true, status);
  if (v == nullptr || !status.ok()) return;
  if (!v->is_number() || v->get<double>() < 0 || v->get<double>() > 60e6) {
    status = make_error("'access_time_us' must be a number from 0 to 60000000");
    return;
  }
  out_ns = v->is_number_unsigned() ? static_cast<int64_t>(v->get<uint64_t>()) * kNsPerUs
                                   : static_cast<int64_t>(std::llround(v->get<double>() * kNsPerUs));
}

}  // namespace

json profile_to_json(const Profile& p) {
  json j = json::object();
  j["name"] = p.name;
  j["type"] = std::string(to_string(p.type));
  j["access_time_us"] = access_time_us_json(p.access_time_ns);
  j["read_throughput_bytes_per_sec"] = p.read_bytes_per_sec;
  j["write_throughput_bytes_per_sec"] = p.write_bytes_per_sec;
  j["io_queue_depth"] = p.queue_depth;
  j["max_read_bytes"] = p.max_read_bytes;
  j["max_write_bytes"] = p.max_write_bytes;
  j["max_read_segments"] = p.max_read_segments;
  j["max_write_segments"] = p.max_write_segments;
  j["spinup_idle_ns"] = p.spinup_idle_ns;
  j["spinup_time_ns"] = p.spinup_ns;
  return j;
}

Result<Profile> profile_from_json(const json& j) {
  if (!j.is_object()) return make_error("a profile must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      return make_error(fmt::format("unknown key '{}' in a profile", key));
    }
  }
  Profile p;
  Status status = ok_status();
  read_name(j, p.name, status);
  read_type(j, p.type, status);
  read_access_time(j, p.access_time_ns, status);
  constexpr uint64_t kU64 = std::numeric_limits<uint64_t>::max();
  constexpr uint64_t kU32 = std::numeric_limits<uint32_t>::max();
  constexpr uint64_t kI64 = std::numeric_limits<int64_t>::max();
  read_unsigned(j, "read_throughput_bytes_per_sec", true, kU64, p.read_bytes_per_sec, status);
  read_unsigned(j, "write_throughput_bytes_per_sec", true, kU64, p.write_bytes_per_sec, status);
  read_unsigned(j, "io_queue_depth", true, kU32, p.queue_depth, status);
  read_unsigned(j, "max_read_bytes", true, kU64, p.max_read_bytes, status);
  read_unsigned(j, "max_write_bytes", true, kU64, p.max_write_bytes, status);
  read_unsigned(j, "max_read_segments", true, kU32, p.max_read_segments, status);
  read_unsigned(j, "max_write_segments", true, kU32, p.max_write_segments, status);
  read_unsigned(j, "spinup_idle_ns", false, kI64, p.spinup_idle_ns, status);
  read_unsigned(j, "spinup_time_ns", false, kI64, p.spinup_ns, status);
  if (!status.ok()) return make_error(status.error());
  if (Status v = validate(p); !v.ok()) return make_error(v.error());
  return p;
}

std::string_view cache_mode_name(CacheMode mode) {
  switch (mode) {
    case CacheMode::kWriteBack: return "writeback";
    case CacheMode::kPageCache: return "page_cache";
    case CacheMode::kNoCache: return "no_cache";
  }
  return "page_cache";
}

Result<CacheMode> parse_cache_mode_name(std::string_view name) {
  if (name == "writeback") return CacheMode::kWriteBack;
  if (name == "page_cache") return CacheMode::kPageCache;
  if (name == "no_cache") return CacheMode::kNoCache;
  return make_error(
      fmt::format("unknown cache mode '{}' (writeback, page_cache or no_cache)", name));
}

}  // namespace diskcond::dmc
