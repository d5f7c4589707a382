// JSON form of a profile and a cache mode: the one schema used by `show -json`, `list -json`,
// `status -json` and the settings store (docs/dmc.md, "JSON output"). Keys carry their units.
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
#include <string_view>

#include "core/profile.h"
#include "core/result.h"
#include "dmc/mount/mount_control.h"

namespace diskcond::dmc {

nlohmann::ordered_json profile_to_json(const Profile& profile);
// Strict: every key above must be present with the right type (the spin-up keys may be absent),
// no other key is allowed, and the profile must pass validate(). Errors name the key.
Result<Profile> profile_from_json(const nlohmann::ordered_json& json);

// "writeback" / "page_cache" (write-through) / "no_cache".
std::string_view cache_mode_name(CacheMode mode);
Result<CacheMode> parse_cache_mode_name(std::string_view name);

}  // namespace diskcond::dmc
