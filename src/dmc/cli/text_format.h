// dmc's human-readable output, in macOS dmc's shapes (docs/dmc.md shows each one). Every function
// returns whole lines, each ending in '\n'; nothing here prints or decides.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/profile.h"
#include "dmc/cli/status_view.h"
#include "dmc/mount/processes_inside.h"

namespace diskcond::dmc {

// "  0: Faulty 5400 HDD\n" per profile, index right-aligned in 3 columns.
std::string format_profile_list(std::span<const Profile> profiles);

// "Profile: <name>\n" then profile_field_lines().
std::string format_profile(const Profile& profile);

// The nine indented lines macOS prints for a profile (" Type: HDD", then one per field of
// core/profile_fields.h with a label: " Access time: 52222 us",
// " Read throughput: 50 MB/s", ... " Max Write Segments: 128"), then " Spin-up: ..." for a
// profile with a spin-up penalty (beyond macOS).
std::string profile_field_lines(const Profile& profile);

// "Disk Mount Conditioner: ON|OFF|STALE", "Profile: <name>", the fields, then (beyond macOS) the
// mount, daemon, cache mode, boot persistence and live counters.
std::string format_status(const StatusView& view);

// "pid 812 (bash: cwd), pid 977 (rawio: fd 3, map)": the first `max` processes, then " and <n>
// more".
std::string format_processes(const std::vector<mount::ProcessInside>& processes, size_t max = 4);

// "52222 us", "1.5 us": an access time as macOS prints it.
std::string format_access_time(int64_t ns);
// "850 ns", "12.5 us", "52.1 ms", "8.00 s".
std::string format_duration(double ns);

}  // namespace diskcond::dmc
