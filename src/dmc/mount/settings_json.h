// JSON forms of a mount's settings and diagnostics, one vocabulary for the control protocol (dmc
// <-> daemon, control_protocol.h), the settings store and `dmc show/list/status -json`
// (docs/dmc.md, "JSON output"). Keys carry their units.
//
// A profile: "name", "type", then each field of core/profile_fields.h under its json_key():
//
//   {"name": "Faulty 5400 HDD", "type": "HDD", "access_time_us": 52222,
//    "read_throughput_bytes_per_sec": 52428800, "write_throughput_bytes_per_sec": 52428800,
//    "io_queue_depth": 16, "max_read_bytes": 16777216, "max_write_bytes": 16777216,
//    "max_read_segments": 128, "max_write_segments": 128,
//    "spinup_idle_ns": 0, "spinup_time_ns": 0}
//
// access_time_us is a whole number unless the access time is not a whole number of microseconds.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <variant>

#include "core/profile.h"
#include "core/result.h"
#include "dmc/mount/mount_control.h"

namespace diskcond::mount {

nlohmann::ordered_json profile_to_json(const Profile& profile);
// Strict: every key above must be present with the right type (the spin-up keys may be absent),
// no other key is allowed, and the profile must pass validate(). Errors name the key or the field.
Result<Profile> profile_from_json(const nlohmann::ordered_json& json);

// "writeback" / "page_cache" (write-through) / "no_cache".
std::string_view cache_mode_name(CacheMode mode);
Result<CacheMode> parse_cache_mode_name(std::string_view name);

// The figures of MountDiagnostics, each defined once, in the order of the JSON object.
struct DiagnosticsField {
  std::string_view key;  // "lateness_p99_ns"
  std::variant<uint64_t MountDiagnostics::*, int64_t MountDiagnostics::*,
               double MountDiagnostics::*>
      member;
  bool documented;  // in `dmc status -json` too; false: between dmc and the daemon only
};
std::span<const DiagnosticsField> diagnostics_fields();

// Every field, or (documented_only) those `dmc status -json` shows.
nlohmann::ordered_json diagnostics_to_json(const MountDiagnostics& diagnostics,
                                           bool documented_only);
// Lenient: a key that is absent or of the wrong type leaves its figure at 0.
MountDiagnostics diagnostics_from_json(const nlohmann::ordered_json& json);

}  // namespace diskcond::mount
