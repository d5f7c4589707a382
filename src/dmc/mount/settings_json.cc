#include "dmc/mount/settings_json.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>

#include "core/profile_fields.h"
#include "core/units.h"

namespace diskcond::mount {
namespace {

using json = nlohmann::ordered_json;

constexpr uint64_t kMaxWhole = std::numeric_limits<int64_t>::max();

// The JSON number of `field`'s value: the member's value over json_divisor() (microseconds for
// access_time_us, the ratio for latency_tail), whole when it is.
json field_to_json(const ProfileField& field, const Profile& p) {
  const int64_t divisor = json_divisor(field);
  return visit_field(field, p, [&](auto value) -> json {
    if (divisor == 1) return value;
    if (value % divisor == 0) return value / divisor;
    return static_cast<double>(value) / static_cast<double>(divisor);
  });
}

// The member's value from the JSON number `v`, not yet range checked (a number too large for the
// member comes back as kMaxWhole, beyond every field's range).
Result<uint64_t> field_from_json(const ProfileField& field, const std::string& key, const json& v) {
  const bool whole = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
  const int64_t divisor = json_divisor(field);
  if (divisor != 1) {
    if (!v.is_number() || v.get<double>() < 0)
      return make_error(fmt::format("'{}' must be a non-negative number", key));
    if (v.get<double>() >= static_cast<double>(kMaxWhole / divisor)) return kMaxWhole;
    if (whole) return v.get<uint64_t>() * static_cast<uint64_t>(divisor);
    return static_cast<uint64_t>(std::llround(v.get<double>() * static_cast<double>(divisor)));
  }
  if (!whole)
    return make_error(fmt::format("'{}' must be a whole number from 0 to {}", key, kMaxWhole));
  return v.get<uint64_t>();
}

Status read_name(const json& j, Profile& p) {
  auto v = j.find("name");
  if (v == j.end()) return make_error("missing key 'name'");
  if (!v->is_string()) return make_error("'name' must be a string");
  p.name = v->get<std::string>();
  return ok_status();
}

Status read_type(const json& j, Profile& p) {
  auto v = j.find("type");
  if (v == j.end()) return make_error("missing key 'type'");
  if (!v->is_string()) return make_error("'type' must be \"SSD\" or \"HDD\"");
  auto parsed = parse_disk_type(v->get<std::string>());
  if (!parsed.ok()) return make_error(parsed.error());
  p.type = *parsed;
  return ok_status();
}

bool known_key(const std::string& key) {
  if (key == "name" || key == "type" || key == "latency_table") return true;
  for (const ProfileField& field : profile_fields()) {
    if (json_key(field) == key) return true;
  }
  return false;
}

// Reads the fields, in key order; the first error wins.
Status read_profile(const json& j, Profile& p) {
  for (const auto& [key, value] : j.items()) {
    if (!known_key(key)) return make_error(fmt::format("unknown key '{}' in a profile", key));
  }
  if (Status s = read_name(j, p); !s.ok()) return s;
  if (Status s = read_type(j, p); !s.ok()) return s;
  if (auto v = j.find("latency_table"); v != j.end()) {
    if (!v->is_string()) return make_error("'latency_table' must be a string");
    p.latency_table = v->get<std::string>();
  }
  for (const ProfileField& field : profile_fields()) {
    const std::string key = json_key(field);
    auto v = j.find(key);
    if (v == j.end()) {
      if (field.required_in_json) return make_error(fmt::format("missing key '{}'", key));
      continue;
    }
    auto value = field_from_json(field, key, *v);
    if (!value.ok()) return make_error(value.error());
    if (Status s = check_value(field, *value); !s.ok()) return s;
    set_field(field, p, static_cast<int64_t>(*value));
  }
  return validate(p);
}

constexpr std::array<DiagnosticsField, 35> kDiagnostics = {{
    {"backing_bound_replies", &MountDiagnostics::backing_bound_replies, true},
    {"backing_bound_mean_excess_ns", &MountDiagnostics::backing_bound_mean_excess_ns, true},
    {"backing_bound_excess_total_ns", &MountDiagnostics::backing_bound_excess_total_ns, true},
    {"wake_ahead_ns", &MountDiagnostics::wake_ahead_ns, true},
    {"max_lateness_ns", &MountDiagnostics::max_lateness_ns, false},
    {"transit_lead_read_ns", &MountDiagnostics::transit_lead_read_ns, true},
    {"transit_lead_write_ns", &MountDiagnostics::transit_lead_write_ns, true},
    {"copy_lead_read_1mib_ns", &MountDiagnostics::copy_lead_read_1mib_ns, true},
    {"copy_lead_write_1mib_ns", &MountDiagnostics::copy_lead_write_1mib_ns, true},
    {"lateness_replies", &MountDiagnostics::lateness_replies, true},
    {"lateness_early_replies", &MountDiagnostics::lateness_early_replies, true},
    {"lateness_p50_ns", &MountDiagnostics::lateness_p50_ns, true},
    {"lateness_p90_ns", &MountDiagnostics::lateness_p90_ns, true},
    {"lateness_p99_ns", &MountDiagnostics::lateness_p99_ns, true},
    {"lateness_p999_ns", &MountDiagnostics::lateness_p999_ns, true},
    {"lateness_max_ns", &MountDiagnostics::lateness_max_ns, true},
    {"lateness_total_ns", &MountDiagnostics::lateness_total_ns, true},
    {"model_latency_total_ns", &MountDiagnostics::model_latency_total_ns, true},
    {"model_overtaken_commands", &MountDiagnostics::model_overtaken_commands, true},
    {"idle_poll_state", &MountDiagnostics::idle_poll_state, true},
    {"idle_poll_errno", &MountDiagnostics::idle_poll_errno, true},
    {"idle_poll_holds", &MountDiagnostics::idle_poll_holds, true},
    {"idle_poll_held_ns", &MountDiagnostics::idle_poll_held_ns, true},
    {"kernel_arrivals", &MountDiagnostics::kernel_arrivals, true},
    {"kernel_arrival_misses", &MountDiagnostics::kernel_arrival_misses, true},
    {"handover_total_ns", &MountDiagnostics::handover_total_ns, true},
    {"send_order_waits", &MountDiagnostics::send_order_waits, true},
    {"send_order_timeouts", &MountDiagnostics::send_order_timeouts, true},
    {"send_order_waited_ns", &MountDiagnostics::send_order_waited_ns, true},
    {"spun_replies", &MountDiagnostics::spun_replies, true},
    {"worker_cpu_mask", &MountDiagnostics::worker_cpu_mask, true},
    {"worker_cpu_changes", &MountDiagnostics::worker_cpu_changes, true},
    {"read_request_max_bytes", &MountDiagnostics::read_request_max_bytes, true},
    {"write_request_max_bytes", &MountDiagnostics::write_request_max_bytes, true},
    {"spliced_read_replies", &MountDiagnostics::spliced_read_replies, true},
}};

}  // namespace

json profile_to_json(const Profile& p) {
  json j = json::object();
  j["name"] = p.name;
  j["type"] = std::string(to_string(p.type));
  for (const ProfileField& field : profile_fields()) j[json_key(field)] = field_to_json(field, p);
  if (!p.latency_table.empty()) j["latency_table"] = p.latency_table;  // only when set
  return j;
}

Result<Profile> profile_from_json(const json& j) {
  if (!j.is_object()) return make_error("a profile must be a JSON object");
  Profile p;
  if (Status s = read_profile(j, p); !s.ok()) return make_error(s.error());
  return p;
}

std::string_view cache_mode_name(CacheMode mode) {
  switch (mode) {
    case CacheMode::kWriteBack:
      return "writeback";
    case CacheMode::kPageCache:
      return "page_cache";
    case CacheMode::kNoCache:
      return "no_cache";
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

std::span<const DiagnosticsField> diagnostics_fields() {
  return kDiagnostics;
}

json diagnostics_to_json(const MountDiagnostics& d, bool documented_only) {
  json j = json::object();
  for (const DiagnosticsField& field : kDiagnostics) {
    if (documented_only && !field.documented) continue;
    std::visit([&](auto member) { j[std::string(field.key)] = d.*member; }, field.member);
  }
  return j;
}

MountDiagnostics diagnostics_from_json(const json& j) {
  MountDiagnostics d;
  if (!j.is_object()) return d;
  for (const DiagnosticsField& field : kDiagnostics) {
    auto v = j.find(std::string(field.key));
    if (v == j.end()) continue;
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(d.*member)>;
          if constexpr (std::is_same_v<T, double>) {
            if (v->is_number()) d.*member = v->get<double>();
          } else if constexpr (std::is_unsigned_v<T>) {
            if (v->is_number_unsigned()) d.*member = v->get<T>();
          } else {
            if (v->is_number_integer()) d.*member = v->get<T>();
          }
        },
        field.member);
  }
  return d;
}

}  // namespace diskcond::mount
