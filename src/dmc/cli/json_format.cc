#include "dmc/cli/json_format.h"

#include "dmc/mount/settings_json.h"

namespace diskcond::dmc {
namespace {

using json = nlohmann::ordered_json;

std::string_view state_name(ConditionerState state) {
  switch (state) {
    case ConditionerState::kOn:
      return "on";
    case ConditionerState::kStale:
      return "stale";
    case ConditionerState::kOff:
      break;
  }
  return "off";
}

json counters_json(const mount::MountCounters& c) {
  return json{
      {"read_commands", c.commands[0]},
      {"read_bytes", c.bytes[0]},
      {"write_commands", c.commands[1]},
      {"write_bytes", c.bytes[1]},
      {"flush_commands", c.commands[2]},
      {"mean_added_delay_ns", c.mean_added_delay_ns},
      {"queue_occupancy_commands", c.queue_occupancy},
      {"floor_read_4k_ns", c.floor_read_ns},
      {"floor_write_4k_ns", c.floor_write_ns},
      {"files_placed_from_extents", c.files_mapped},
      {"files_hashed", c.files_hashed},
      {"files_linear", c.files_linear},
      {"metadata_reads", c.metadata_reads},
      {"directory_reads", c.directory_reads},
      {"written_page_reads", c.written_page_reads},
      {"fault_rules", c.fault_rules},
      {"faults_injected", c.faults_injected},
      {"stall_active", c.stall_active != 0},
      {"stalled_ns", c.stalled_ns},
  };
}

}  // namespace

json list_json(std::span<const Profile> profiles, size_t builtin_count,
               const std::vector<std::string>& warnings) {
  json list = json::array();
  for (size_t i = 0; i < profiles.size(); ++i) {
    json entry = json{{"index", i}, {"builtin", i < builtin_count}};
    entry.update(mount::profile_to_json(profiles[i]));
    list.push_back(std::move(entry));
  }
  return json{{"schema_version", kJsonSchemaVersion},
              {"profiles", std::move(list)},
              {"warnings", warnings}};
}

json show_json(size_t index, bool builtin, const Profile& profile) {
  return json{{"schema_version", kJsonSchemaVersion},
              {"index", index},
              {"builtin", builtin},
              {"profile", mount::profile_to_json(profile)}};
}

json status_json(const StatusView& view) {
  json j = json::object();
  j["schema_version"] = kJsonSchemaVersion;
  j["mount"] = view.mount;
  j["path"] = view.path.empty() ? view.mount : view.path;
  j["state"] = std::string(state_name(view.state));
  j["conditioned"] = view.state != ConditionerState::kOff;
  j["daemon_alive"] = view.state == ConditionerState::kOn;
  j["daemon_pid"] = view.daemon_pid > 0 ? json(view.daemon_pid) : json(nullptr);
  std::string_view source = view.state == ConditionerState::kOn ? "mount"
                            : view.settings                     ? "store"
                                                                : "none";
  j["settings_source"] = std::string(source);
  j["profile"] = mount::profile_to_json(view.settings ? view.settings->profile : zero_profile());
  j["cache_mode"] = view.settings ? json(std::string(mount::cache_mode_name(view.settings->cache)))
                                  : json(nullptr);
  j["crashable"] = view.state == ConditionerState::kOn && view.settings && view.settings->crashable;
  j["boot"] = view.boot;
  j["boot_reapplied"] = view.boot && view.boot_problem.empty();
  j["boot_problem"] =
      view.boot && !view.boot_problem.empty() ? json(view.boot_problem) : json(nullptr);
  j["counters"] = view.counters ? counters_json(*view.counters) : json(nullptr);
  j["diagnostics"] = view.diagnostics
                         ? mount::diagnostics_to_json(*view.diagnostics, /*documented_only=*/true)
                         : json(nullptr);
  json processes = json::array();
  for (const mount::ProcessInside& p : view.unconditioned_processes) {
    processes.push_back(json{{"pid", p.pid}, {"command", p.command}, {"uses", p.uses}});
  }
  j["unconditioned_processes"] = std::move(processes);
  return j;
}

std::string render_json(const json& j) {
  return j.dump(2) + "\n";
}

}  // namespace diskcond::dmc
