#include "dmc/cli/status_view.h"

namespace diskcond::dmc {

Profile zero_profile() {
  Profile p;
  p.name = "None";
  p.queue_depth = 0;
  return p;
}

StatusView make_status_view(const mount::MountStatus& status,
                            const std::optional<StoredMount>& stored, const std::string& path) {
  StatusView view;
  view.mount = status.mount_point;
  view.path = path;
  view.boot = stored.has_value() && stored->boot;
  if (status.mounted && status.daemon_alive) {
    view.state = ConditionerState::kOn;
    view.settings = status.settings;
    view.counters = status.counters;
    view.diagnostics = status.diagnostics;
    view.daemon_pid = status.daemon_pid;
  } else if (status.mounted) {
    view.state = ConditionerState::kStale;
    view.daemon_pid = status.daemon_pid;
  } else {
    view.state = ConditionerState::kOff;
    if (stored.has_value()) view.settings = stored->settings;
  }
  return view;
}

}  // namespace diskcond::dmc
