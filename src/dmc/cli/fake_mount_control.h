// TEST ONLY: a MountControl that keeps mounts in memory and records every call, so dmc's commands
// can be tested without FUSE or root.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dmc/mount/mount_control.h"

namespace diskcond::dmc {

class FakeMountControl final : public mount::MountControl {
 public:
  // Every call, in order: "check <dir>", "start <dir>", "stop <dir>", "stop -force <dir>", "status
  // <dir>", "update <dir>", "sync <dir>", "run <dir> <profile name> <cache>[ crashable][ [<rule
  // words>] ...] -- <command words>",
  // "fault add <dir> <rule words>", "fault list <dir>", "fault remove <dir> <id>", "fault clear
  // <dir>", "fault log <dir>", "fault release <dir>".
  std::vector<std::string> calls;
  // The mounts the fake "runs", by directory.
  std::map<std::string, mount::MountStatus> mounts;
  uid_t directory_owner = 0;  // every directory's owner (MountStatus::owner)
  // When set, the next call of that kind fails with this message.
  std::string fail_start, fail_stop, fail_status, fail_update, fail_run;
  // Each mount's error rules (the settings' faults once started, then fault_add ...).
  std::map<std::string, mount::FaultReport> faults;
  std::map<std::string, std::vector<FaultEvent>> fault_events;  // what fault_log answers
  uint64_t next_fault_id = 1;
  uint64_t stalls_to_release = 0;  // what fault_release answers (then 0)
  // What run() reports about the command it "ran".
  mount::CommandEnd run_end;
  // Directories check_conditionable refuses, with the reason (besides "/" and the own dirs).
  std::map<std::string, std::string> unconditionable;
  // The own_dirs of the last check_conditionable call.
  std::vector<std::string> last_own_dirs;

  // The calls that would change something (everything but status and check).
  std::vector<std::string> changing_calls() const {
    std::vector<std::string> out;
    for (const std::string& c : calls) {
      if (c.rfind("status ", 0) != 0 && c.rfind("check ", 0) != 0 &&
          c.rfind("fault list ", 0) != 0 && c.rfind("fault log ", 0) != 0)
        out.push_back(c);
    }
    return out;
  }

  // `dir` is `path` or one of its ancestors.
  static bool holds(const std::string& dir, const std::string& path) {
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                           (dir == "/" || path[dir.size()] == '/'));
  }

  // Puts a running mount on `dir`, as if started earlier.
  mount::MountStatus& add_running(const std::string& dir, const mount::MountSettings& settings) {
    mount::MountStatus& s = mounts[dir];
    s.mount_point = dir;
    s.mounted = true;
    s.daemon_alive = true;
    s.daemon_pid = 4242;
    s.settings = settings;
    s.owner = directory_owner;  // started by the directory's owner
    return s;
  }

  Status check_conditionable(const std::string& dir,
                             const std::vector<std::string>& own_dirs) override {
    calls.push_back("check " + dir);
    last_own_dirs = own_dirs;
    if (dir == "/") return make_error("refusing to condition / (fake)");
    for (const std::string& own : own_dirs) {
      if (holds(dir, own))
        return make_error("refusing to condition " + dir + ": it holds dmc's own files (" + own +
                          ")");
    }
    auto it = unconditionable.find(dir);
    if (it != unconditionable.end()) return make_error(it->second);
    return ok_status();
  }
  Status start(const std::string& dir, const mount::MountSettings& settings) override {
    calls.push_back("start " + dir);
    if (!fail_start.empty()) return make_error(std::exchange(fail_start, ""));
    if (mounts.count(dir) != 0) return make_error("already conditioned");
    add_running(dir, settings);
    for (const FaultRule& rule : settings.faults)
      faults[dir].rules.push_back({next_fault_id++, rule});
    return ok_status();
  }
  Status stop(const std::string& dir, bool force) override {
    calls.push_back(std::string("stop ") + (force ? "-force " : "") + dir);
    if (!fail_stop.empty()) return make_error(std::exchange(fail_stop, ""));
    if (mounts.erase(dir) == 0) return make_error("not conditioned");
    return ok_status();
  }
  Result<mount::MountStatus> status(const std::string& dir) override {
    calls.push_back("status " + dir);
    if (!fail_status.empty()) return make_error(std::exchange(fail_status, ""));
    // The mount on `dir` or on the nearest ancestor of it (as the kernel's mount table says).
    auto holder = mounts.end();
    for (auto it = mounts.begin(); it != mounts.end(); ++it) {
      if (holds(it->first, dir) &&
          (holder == mounts.end() || it->first.size() > holder->first.size()))
        holder = it;
    }
    if (holder != mounts.end()) return holder->second;
    mount::MountStatus off;
    off.mount_point = dir;
    off.owner = directory_owner;
    return off;
  }
  Status update(const std::string& dir, const mount::MountSettings& settings) override {
    calls.push_back("update " + dir);
    if (!fail_update.empty()) return make_error(std::exchange(fail_update, ""));
    auto it = mounts.find(dir);
    if (it == mounts.end() || !it->second.daemon_alive) return make_error("not conditioned");
    it->second.settings = settings;
    return ok_status();
  }
  Result<mount::CommandEnd> run(const std::string& dir, const mount::MountSettings& settings,
                                const std::vector<std::string>& command) override {
    std::string call = "run " + dir + " " + settings.profile.name + " " +
                       (settings.cache == mount::CacheMode::kNoCache     ? "nocache"
                        : settings.cache == mount::CacheMode::kPageCache ? "writethrough"
                                                                         : "writeback") +
                       (settings.crashable ? " crashable" : "");
    for (const FaultRule& rule : settings.faults) call += " [" + fault_rule_text(rule) + "]";
    call += " --";
    for (const std::string& word : command) call += " " + word;
    calls.push_back(call);
    if (!fail_run.empty()) return make_error(std::exchange(fail_run, ""));
    return run_end;
  }
  Result<uint64_t> fault_add(const std::string& dir, const FaultRule& rule) override {
    calls.push_back("fault add " + dir + " " + fault_rule_text(rule));
    if (!alive(dir)) return make_error("not conditioned");
    faults[dir].rules.push_back({next_fault_id, rule});
    return next_fault_id++;
  }
  Result<mount::FaultReport> fault_list(const std::string& dir) override {
    calls.push_back("fault list " + dir);
    if (!alive(dir)) return make_error("not conditioned");
    return faults[dir];
  }
  Status fault_remove(const std::string& dir, uint64_t id) override {
    calls.push_back("fault remove " + dir + " " + std::to_string(id));
    if (!alive(dir)) return make_error("not conditioned");
    auto& rules = faults[dir].rules;
    for (auto it = rules.begin(); it != rules.end(); ++it) {
      if (it->id == id) {
        rules.erase(it);
        return ok_status();
      }
    }
    return make_error("no fault rule " + std::to_string(id));
  }
  Status fault_clear(const std::string& dir) override {
    calls.push_back("fault clear " + dir);
    if (!alive(dir)) return make_error("not conditioned");
    faults[dir].rules.clear();
    return ok_status();
  }
  Result<uint64_t> fault_release(const std::string& dir) override {
    calls.push_back("fault release " + dir);
    if (!alive(dir)) return make_error("not conditioned");
    return std::exchange(stalls_to_release, 0);
  }
  Result<std::vector<FaultEvent>> fault_log(const std::string& dir) override {
    calls.push_back("fault log " + dir);
    if (!alive(dir)) return make_error("not conditioned");
    return fault_events[dir];
  }
  bool alive(const std::string& dir) const {
    auto it = mounts.find(dir);
    return it != mounts.end() && it->second.daemon_alive;
  }

  Status sync(const std::string& dir) override {
    calls.push_back("sync " + dir);
    auto it = mounts.find(dir);
    if (it == mounts.end() || !it->second.daemon_alive) return make_error("not conditioned");
    return ok_status();
  }

  // "crash <dir> <seed> <tear>": the mount goes, and crash_report is answered.
  mount::CrashReport crash_report;
  Result<mount::CrashReport> crash(const std::string& dir,
                                   const mount::CrashOptions& options) override {
    calls.push_back("crash " + dir + " " + std::to_string(options.seed) + " " +
                    tear_name(options.tear));
    if (!alive(dir)) return make_error("not conditioned");
    mounts.erase(dir);
    mount::CrashReport r = crash_report;
    r.seed = options.seed;
    r.tear = options.tear;
    return r;
  }
};

}  // namespace diskcond::dmc
