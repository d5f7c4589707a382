// dmc's -json output. The schema is stable and documented in docs/dmc.md ("JSON output"): keys
// are only ever added, never renamed or removed, and every key carries its unit. Each document
// has "schema_version": 1. Nothing here prints or decides.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/profile.h"
#include "dmc/cli/status_view.h"

namespace diskcond::dmc {

inline constexpr int kJsonSchemaVersion = 1;

// {"schema_version": 1, "profiles": [{"index": 0, "builtin": true, <profile keys>}, ...],
//  "warnings": ["<file>:<line>: <what>", ...]}
nlohmann::ordered_json list_json(std::span<const Profile> profiles, size_t builtin_count,
                                 const std::vector<std::string>& warnings);

// {"schema_version": 1, "index": 0, "builtin": true, "profile": {<profile keys>}}
nlohmann::ordered_json show_json(size_t index, bool builtin, const Profile& profile);

// {"schema_version": 1, "mount": "/srv/data", "state": "on"|"off"|"stale", "conditioned": bool,
//  "daemon_alive": bool, "daemon_pid": n|null, "settings_source": "mount"|"store"|"none",
//  "profile": {<profile keys>}, "cache_mode": "writeback"|"page_cache"|"no_cache"|null, "boot":
//  bool, "boot_reapplied": bool, "boot_problem": "dmc-boot.service is not installed"|null,
//  "counters": {...}|null, "diagnostics": {...}|null,
//  "unconditioned_processes": [{"pid": n, "command": "bash", "uses": ["cwd", "fd 3", "map"]}, ...]}
nlohmann::ordered_json status_json(const StatusView& view);

// JSON text as dmc prints it: indented by 2, one trailing newline.
std::string render_json(const nlohmann::ordered_json& json);

}  // namespace diskcond::dmc
