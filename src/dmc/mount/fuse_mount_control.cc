// make_fuse_mount_control(): the MountControl dmc uses. Each conditioned directory has its own
// daemon (daemon.h); this side validates, spawns it and talks to it over its control socket.
#include <fcntl.h>
#include <fmt/format.h>
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
#include "dmc/mount/fusermount.h"
#include "dmc/mount/mount_control.h"
#include "dmc/mount/mount_table.h"
#include "dmc/mount/private_namespace.h"
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

// Root may change any conditioned mount; an ordinary user only one they started.
Status need_owner(const char* what, const std::string& mount_point, uid_t owner) {
  const uid_t me = geteuid();
  if (me == 0 || me == owner) return ok_status();
  return make_error(
      fmt::format("only root or uid {} (who started it) may {} the conditioned mount {}", owner,
                  what, mount_point));
}

// An ordinary user may condition a directory they own and may write, nothing else, and needs
// /dev/fuse and fusermount3 to mount it.
Status may_condition(const std::string& path, int dir_fd) {
  const uid_t me = geteuid();
  if (me == 0) return ok_status();
  if (std::string problem = fuse_device_problem(probe_namespace_support()); !problem.empty())
    return make_error("without root, " + problem);
  if (fusermount_path().empty())
    return make_error(
        "without root, dmc mounts through fusermount3, which is missing (install fuse3)");
  struct stat st {};
  if (fstat(dir_fd, &st) < 0) return make_error(path + ": " + std::strerror(errno));
  if (st.st_uid != me) {
    return make_error(
        fmt::format("{} belongs to uid {}: without root, dmc conditions only "
                    "directories you own",
                    path, st.st_uid));
  }
  if (access(path.c_str(), W_OK | X_OK) < 0)
    return make_error(path + ": you may not write it (" + std::strerror(errno) + ")");
  return ok_status();
}

// Detaches a mount whose daemon died: umount2 as root, fusermount3 -u -z for a user's own mount
// (an ordinary user may not call umount2). Returns 0 or an error message.
Status detach_stale_mount(const std::string& path) {
  if (geteuid() == 0) {
    if (umount2(path.c_str(), MNT_DETACH) == 0) return ok_status();
    return make_error("cannot detach the stale mount on " + path + ": " + std::strerror(errno));
  }
  if (int r = fusermount_unmount(path, /*lazy=*/true); r < 0) {
    return make_error("cannot detach the stale mount on " + path +
                      " (fusermount3 -u -z: " + std::strerror(-r) + ")");
  }
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
  // The run files of the conditioned mount on `mount_point`, in its owner's run directory.
  static RunPaths paths_of_mount(const std::string& mount_point) {
    return run_paths_for(mount_point, conditioned_mount_owner(mount_point));
  }

  // One fault_* request to the daemon of the conditioned mount `dir`: its reply line as `decode`
  // reads it (decode_ack, decode_fault_report, ...). Whether the caller may change the rules is
  // the daemon's to say (SO_PEERCRED).
  template <class Decode>
  static auto fault_call(const std::string& dir, const ControlRequest& request, Decode decode)
      -> decltype(decode(std::string())) {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (!is_conditioned_mount(*path)) return make_error(*path + " is not conditioned");
    auto reply = control_call(paths_of_mount(*path).socket, encode_request(request));
    if (!reply.ok())
      return make_error(*path + ": the daemon does not answer (" + reply.error() + "); run stop");
    return decode(*reply);
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
    if (geteuid() != 0) all.push_back(run_directory_of(geteuid()));
    return mount::check_conditionable(*path, all);
  }

  Status start(const std::string& dir, const MountSettings& settings) override {
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
    const uid_t me = geteuid();
    Status allowed = may_condition(*path, fd);
    if (allowed.ok()) allowed = ensure_run_directory(me);
    if (!allowed.ok()) {
      close(fd);
      return allowed;
    }
    DaemonConfig config{*path, fd, settings, run_paths_for(*path, me)};
    config.allow_other = me == 0;
    auto pid = spawn_daemon(config);
    close(fd);
    if (!pid.ok()) return Error{*path + ": " + pid.error()};
    return ok_status();
  }

  Status stop(const std::string& dir, bool force) override {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (!is_conditioned_mount(*path)) {
      // Leftovers of a daemon whose mount is gone are not worth an error of their own.
      const RunPaths paths = run_paths_for(*path, geteuid());
      auto state = read_state(paths.state);
      if (state.ok() && !process_alive(state->pid)) remove_run_files(paths);
      return make_error(*path + " is not conditioned");
    }
    const uid_t owner = conditioned_mount_owner(*path);
    if (auto s = need_owner("stop", *path, owner); !s.ok()) return s;
    const RunPaths paths = run_paths_for(*path, owner);
    auto state = read_state(paths.state);
    ControlRequest request;
    request.op = ControlOp::kStop;
    request.force = force;
    auto reply = control_call(paths.socket, encode_request(request));
    if (!reply.ok()) {
      // No daemon behind the mount: a stale mount ("Transport endpoint is not connected").
      if (auto s = detach_stale_mount(*path); !s.ok()) return s;
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
    if (!st.mounted) {
      struct stat dir {};
      if (::stat(path->c_str(), &dir) == 0) st.owner = dir.st_uid;
      return st;
    }
    st.owner = conditioned_mount_owner(holder);
    const RunPaths paths = run_paths_for(holder, st.owner);
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
    // A `dmc run` mount of an ordinary user is allow_other in their namespace (user_id= says
    // nothing of them): the daemon, which runs as its user, says whose it is.
    if (decoded->uid) st.owner = *decoded->uid;
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
    Result<int64_t> durable_at = int64_t{-1};
    // -1: a stall until released holds the device; asked again until it is released.
    for (bool first = true; durable_at.ok() && *durable_at < 0; first = false) {
      if (!first) sleep_ms(50);
      auto reply = control_call(paths_of_mount(*path).socket, encode_request(request));
      if (!reply.ok())
        return make_error(*path + ": the daemon does not answer (" + reply.error() + "); run stop");
      durable_at = decode_synced(*reply);
    }
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
    return fault_call(dir, {.op = ControlOp::kFaultAdd, .rule = rule}, decode_fault_added);
  }

  Result<FaultReport> fault_list(const std::string& dir) override {
    return fault_call(dir, {.op = ControlOp::kFaultList}, decode_fault_report);
  }

  Status fault_remove(const std::string& dir, uint64_t id) override {
    return fault_call(dir, {.op = ControlOp::kFaultRemove, .id = id}, decode_ack);
  }

  Status fault_clear(const std::string& dir) override {
    return fault_call(dir, {.op = ControlOp::kFaultClear}, decode_ack);
  }

  Result<uint64_t> fault_release(const std::string& dir) override {
    return fault_call(dir, {.op = ControlOp::kFaultRelease}, decode_released);
  }

  Result<std::vector<FaultEvent>> fault_log(const std::string& dir) override {
    return fault_call(dir, {.op = ControlOp::kFaultLog}, decode_fault_log);
  }

  Result<CrashReport> crash(const std::string& dir, const CrashOptions& options) override {
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (!is_conditioned_mount(*path)) return make_error(*path + " is not conditioned");
    if (geteuid() != 0) {  // the daemon checks again (SO_PEERCRED)
      auto mine = status(*path);
      if (!mine.ok() || mine->owner != geteuid())
        return make_error("only root or the user who made it may crash a conditioned mount");
    }
    const RunPaths paths = paths_of_mount(*path);
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
    if (auto v = validate(settings.profile); !v.ok()) return v;
    auto path = canonical_directory_path(dir);
    if (!path.ok()) return Error{path.error()};
    if (!is_conditioned_mount(*path)) return make_error(*path + " is not conditioned");
    const uid_t owner = conditioned_mount_owner(*path);
    if (auto s = need_owner("change", *path, owner); !s.ok()) return s;
    ControlRequest request;
    request.op = ControlOp::kUpdate;
    request.settings = settings;
    auto reply = control_call(run_paths_for(*path, owner).socket, encode_request(request));
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
