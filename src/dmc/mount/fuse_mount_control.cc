// make_fuse_mount_control(): the MountControl dmc uses. Each conditioned directory has its own
// daemon (daemon.h); this side validates, spawns it and talks to it over its control socket.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "dmc/mount/conditionable.h"
#include "dmc/mount/conditioned_command.h"
#include "dmc/mount/control_protocol.h"
#include "dmc/mount/control_socket.h"
#include "dmc/mount/daemon.h"
#include "dmc/mount/mount_control.h"
#include "dmc/mount/mount_table.h"
#include "dmc/mount/run_paths.h"

namespace diskcond::mount {
namespace {

using namespace diskcond::mount;

constexpr int kExitWaitMs = 10000;
// The daemon waits up to 120 s for its requests to end, then restores what was not durable.
constexpr int kCrashReplyMs = 180000;

// Alive and not a zombie (the daemon is nobody's child; PID 1 may be slow to reap it).
bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return false;
  const char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

Status need_root(const char* what) {
  if (geteuid() != 0)
    return make_error(std::string("only root may ") + what + " a conditioned mount");
  return ok_status();
}

bool is_below(const std::string& path, const std::string& dir) {
  if (dir == "/") return path != "/";
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

// Conditioning inside a conditioned mount (delays would add up, and the inner daemon would hold
// the outer mount busy) or above one (it would hide the inner mount) is refused.
Status refuse_nesting(const std::string& path) {
  for (const std::string& point : conditioned_mount_points()) {
    if (is_below(path, point))
      return make_error(path + " is inside the conditioned mount " + point);
    if (is_below(point, path)) {
      return make_error(path + " contains the conditioned mount " + point +
                        "; stop that one first");
    }
  }
  return ok_status();
}

class FuseMountControl final : public MountControl {
 private:
  // One fault_* request to the daemon of the conditioned mount `dir`; its reply line. Whether the
  // caller may change the rules is the daemon's to say (SO_PEERCRED).
  static Result<std::string> fault_call(const std::string& dir, const ControlRequest& request) {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (!is_conditioned_mount(*path)) return make_error(*path + " is not conditioned");
    auto reply = control_call(run_paths_for(*path).socket, encode_request(request));
    if (!reply.ok())
      return make_error(*path + ": the daemon does not answer (" + reply.error() + "); run stop");
    return reply;
  }

 public:
  Status check_conditionable(const std::string& dir,
                             const std::vector<std::string>& own_dirs) override {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    // Held by a conditioned mount (perhaps a stale one, which statfs cannot read): start says
    // what is wrong with that itself.
    if (!conditioned_mount_holding(*path).empty()) return ok_status();
    std::vector<std::string> all = own_dirs;
    all.push_back(run_directory());
    return mount::check_conditionable(*path, all);
  }

  Status start(const std::string& dir, const MountSettings& settings) override {
    if (auto s = need_root("start"); !s.ok()) return s;
    if (auto v = validate(settings.profile); !v.ok()) return v;
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (is_conditioned_mount(*path)) {
      auto status = this->status(*path);
      const bool alive = status.ok() && status->daemon_alive;
      return make_error(*path + " is already conditioned" +
                        (alive ? " (use update to change its settings)"
                               : " by a daemon that died; run stop first"));
    }
    if (auto s = refuse_nesting(*path); !s.ok()) return s;
    if (auto s = check_conditionable(*path, {}); !s.ok()) return s;
    int fd = open(path->c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      return make_error(*path + (errno == ENOTDIR ? ": not a directory"
                                                  : ": " + std::string(std::strerror(errno))));
    }
    if (auto s = ensure_run_directory(); !s.ok()) {
      close(fd);
      return s;
    }
    DaemonConfig config{*path, fd, settings, run_paths_for(*path)};
    auto pid = spawn_daemon(config);
    close(fd);
    if (!pid.ok()) return Error{*path + ": " + pid.error()};
    return ok_status();
  }

  Status stop(const std::string& dir, bool force) override {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    const RunPaths paths = run_paths_for(*path);
    if (!is_conditioned_mount(*path)) {
      // Leftovers of a daemon whose mount is gone are not worth an error of their own.
      auto state = read_state(paths.state);
      if (state.ok() && !process_alive(state->pid)) remove_run_files(paths);
      return make_error(*path + " is not conditioned");
    }
    if (auto s = need_root("stop"); !s.ok()) return s;
    auto state = read_state(paths.state);
    ControlRequest request;
    request.op = ControlOp::kStop;
    request.force = force;
    auto reply = control_call(paths.socket, encode_request(request));
    if (!reply.ok()) {
      // No daemon behind the mount: a stale mount ("Transport endpoint is not connected").
      if (umount2(path->c_str(), MNT_DETACH) < 0) {
        return make_error("cannot detach the stale mount on " + *path + ": " +
                          std::strerror(errno));
      }
      remove_run_files(paths);
      return ok_status();
    }
    if (auto ack = decode_ack(*reply); !ack.ok()) return ack;
    // Unmounted: the daemon sends what is left and exits (at once unless files keep a lazily
    // detached mount alive).
    if (!force && state.ok()) {
      for (int waited = 0; waited < kExitWaitMs && process_alive(state->pid); waited += 5)
        sleep_ms(5);
    }
    return ok_status();
  }

  Result<MountStatus> status(const std::string& dir) override {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    MountStatus st;
    const std::string holder = conditioned_mount_holding(*path);
    st.mounted = !holder.empty();
    st.mount_point = st.mounted ? holder : *path;
    if (!st.mounted) return st;
    const RunPaths paths = run_paths_for(holder);
    auto reply = control_call(paths.socket, encode_request(ControlRequest{}));
    auto decoded = reply.ok() ? decode_status(*reply) : Result<StatusReply>(Error{reply.error()});
    if (!decoded.ok()) {
      auto state = read_state(paths.state);
      if (state.ok()) st.daemon_pid = state->pid;
      st.daemon_alive = false;
      return st;
    }
    st.daemon_alive = true;
    st.daemon_pid = decoded->pid;
    st.settings = decoded->settings;
    st.counters = decoded->counters;
    st.diagnostics = decoded->diagnostics;
    return st;
  }

  Status sync(const std::string& dir) override {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (!is_conditioned_mount(*path)) return make_error(*path + " is not conditioned");
    ControlRequest request;
    request.op = ControlOp::kSync;
    auto reply = control_call(run_paths_for(*path).socket, encode_request(request));
    if (!reply.ok())
      return make_error(*path + ": the daemon does not answer (" + reply.error() + "); run stop");
    auto durable_at = decode_synced(*reply);
    if (!durable_at.ok()) return Error{*path + ": " + durable_at.error()};
    // The daemon's model time is CLOCK_MONOTONIC, the same clock here.
    const timespec at{static_cast<time_t>(*durable_at / 1'000'000'000),
                      static_cast<long>(*durable_at % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
    }
    return ok_status();
  }

  Result<CommandEnd> run(const std::string& dir, const MountSettings& settings,
                         const std::vector<std::string>& command) override {
    if (command.empty()) return make_error("no command to run");
    if (auto v = validate(settings.profile); !v.ok()) return Error{v.error()};
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (is_conditioned_mount(*path)) return make_error(*path + " is already conditioned");
    if (auto s = refuse_nesting(*path); !s.ok()) return Error{s.error()};
    // The daemon's private run directory will be in private_run_base(): conditioning that would
    // put its socket on its own mount.
    if (auto s = check_conditionable(*path, {private_run_base()}); !s.ok()) return Error{s.error()};
    return run_conditioned_command(ConditionedCommand{*path, settings, command});
  }

  Result<uint64_t> fault_add(const std::string& dir, const FaultRule& rule) override {
    ControlRequest request;
    request.op = ControlOp::kFaultAdd;
    request.rule = rule;
    auto reply = fault_call(dir, request);
    if (!reply.ok()) return Error{reply.error()};
    return decode_fault_added(*reply);
  }

  Result<FaultReport> fault_list(const std::string& dir) override {
    ControlRequest request;
    request.op = ControlOp::kFaultList;
    auto reply = fault_call(dir, request);
    if (!reply.ok()) return Error{reply.error()};
    return decode_fault_report(*reply);
  }

  Status fault_remove(const std::string& dir, uint64_t id) override {
    ControlRequest request;
    request.op = ControlOp::kFaultRemove;
    request.id = id;
    auto reply = fault_call(dir, request);
    if (!reply.ok()) return Error{reply.error()};
    return decode_ack(*reply);
  }

  Status fault_clear(const std::string& dir) override {
    ControlRequest request;
    request.op = ControlOp::kFaultClear;
    auto reply = fault_call(dir, request);
    if (!reply.ok()) return Error{reply.error()};
    return decode_ack(*reply);
  }

  Result<std::vector<FaultEvent>> fault_log(const std::string& dir) override {
    ControlRequest request;
    request.op = ControlOp::kFaultLog;
    auto reply = fault_call(dir, request);
    if (!reply.ok()) return Error{reply.error()};
    return decode_fault_log(*reply);
  }

  Result<CrashReport> crash(const std::string& dir, const CrashOptions& options) override {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (!is_conditioned_mount(*path)) return make_error(*path + " is not conditioned");
    if (auto s = need_root("crash"); !s.ok()) return Error{s.error()};
    const RunPaths paths = run_paths_for(*path);
    auto state = read_state(paths.state);
    ControlRequest request;
    request.op = ControlOp::kCrash;
    request.crash = options;
    auto reply = control_call(paths.socket, encode_request(request), kCrashReplyMs);
    if (!reply.ok())
      return make_error(*path + ": the daemon does not answer (" + reply.error() + "); run stop");
    auto report = decode_crash_report(*reply);
    if (!report.ok()) return report;
    // The daemon exits once its last open file is closed (the mount was detached).
    if (state.ok()) {
      for (int waited = 0; waited < kExitWaitMs && process_alive(state->pid); waited += 5)
        sleep_ms(5);
    }
    return report;
  }

  Status update(const std::string& dir, const MountSettings& settings) override {
    if (auto s = need_root("change"); !s.ok()) return s;
    if (auto v = validate(settings.profile); !v.ok()) return v;
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (!is_conditioned_mount(*path)) return make_error(*path + " is not conditioned");
    ControlRequest request;
    request.op = ControlOp::kUpdate;
    request.settings = settings;
    auto reply = control_call(run_paths_for(*path).socket, encode_request(request));
    if (!reply.ok())
      return make_error(*path + ": the daemon does not answer (" + reply.error() + "); run stop");
    return decode_ack(*reply);
  }
};

}  // namespace

std::unique_ptr<MountControl> make_fuse_mount_control() {
  return std::make_unique<FuseMountControl>();
}

}  // namespace diskcond::mount
