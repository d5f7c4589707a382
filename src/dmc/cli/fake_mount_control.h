// TEST ONLY: a MountControl that keeps mounts in memory and records every call, so dmc's commands
// can be tested without FUSE or root.
#pragma once

#include <map>
#include <utility>
#include <string>
#include <vector>

#include "dmc/mount/mount_control.h"

namespace diskcond::dmc {

class FakeMountControl final : public MountControl {
 public:
  // Every call, in order: "start <dir>", "stop <dir>", "stop -force <dir>", "status <dir>", "update <dir>".
  std::vector<std::string> calls;
  // The mounts the fake "runs", by directory.
  std::map<std::string, MountStatus> mounts;
  // When set, the next call of that kind fails with this message.
  std::string fail_start, fail_stop, fail_status, fail_update;

  // The calls that would change something (everything but status).
  std::vector<std::string> changing_calls() const {
    std::vector<std::string> out;
    for (const std::string& c : calls) {
      if (c.rfind("status ", 0) != 0) out.push_back(c);
    }
    return out;
  }

  // Puts a running mount on `dir`, as if started earlier.
  MountStatus& add_running(const std::string& dir, const MountSettings& settings) {
    MountStatus& s = mounts[dir];
    s.mount_point = dir;
    s.mounted = true;
    s.daemon_alive = true;
    s.daemon_pid = 4242;
    s.settings = settings;
    return s;
  }

  Status start(const std::string& dir, const MountSettings& settings) override {
    calls.push_back("start " + dir);
    if (!fail_start.empty()) return make_error(std::exchange(fail_start, ""));
    if (mounts.count(dir) != 0) return make_error("already conditioned");
    add_running(dir, settings);
    return ok_status();
  }
  Status stop(const std::string& dir, bool force) override {
    calls.push_back(std::string("stop ") + (force ? "-force " : "") + dir);
    if (!fail_stop.empty()) return make_error(std::exchange(fail_stop, ""));
    if (mounts.erase(dir) == 0) return make_error("not conditioned");
    return ok_status();
  }
  Result<MountStatus> status(const std::string& dir) override {
    calls.push_back("status " + dir);
    if (!fail_status.empty()) return make_error(std::exchange(fail_status, ""));
    auto it = mounts.find(dir);
    if (it != mounts.end()) return it->second;
    MountStatus off;
    off.mount_point = dir;
    return off;
  }
  Status update(const std::string& dir, const MountSettings& settings) override {
    calls.push_back("update " + dir);
    if (!fail_update.empty()) return make_error(std::exchange(fail_update, ""));
    auto it = mounts.find(dir);
    if (it == mounts.end() || !it->second.daemon_alive) return make_error("not conditioned");
    it->second.settings = settings;
    return ok_status();
  }
};

}  // namespace diskcond::dmc
