#include "dmc/mount/daemon.h"

#include <dirent.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "dmc/mount/conditioner.h"
#include "dmc/mount/control_protocol.h"
#include "dmc/mount/control_socket.h"
#include "dmc/mount/crash_recorder.h"
#include "dmc/mount/credentials.h"
#include "dmc/mount/daemon_knobs.h"
#include "dmc/mount/device_clock.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/fuse_uring.h"
#include "dmc/mount/fusermount.h"
#include "dmc/mount/idle_poll.h"
#include "dmc/mount/machine_writeback.h"
#include "dmc/mount/send_stamps.h"
#include "dmc/mount/session_io.h"
#include "dmc/mount/status_snapshot.h"
#include "dmc/mount/syscall.h"
#include "dmc/mount/transit_probe.h"
#include "dmc/mount/worker_loop.h"
#include "posix/files.h"

namespace diskcond::mount {
namespace {

// Workers do the backing I/O synchronously, so up to this many requests are in the backing
// filesystem at once. Idle workers are kept (worker_loop.h; libfuse's loop with idle = max): with
// fewer kept, libfuse ends a worker whenever more than that many are idle and starts one as soon
// as none is, and a QD32 load made the daemon create and end about 470 threads per second (perf,
// 4 KiB random reads).
constexpr unsigned kMaxWorkerThreads = 64;
constexpr int kReadyTimeoutMs = 15000;
// Malloc tuning. Read and direct-write data buffers come from the Filesystem's BufferPool (64 MiB
// kept); only those beyond it, and everything else, come from malloc. By default glibc raises its
// mmap threshold once a large buffer is freed, so later ones came from per-thread arenas (up to 8
// per CPU) that keep what is freed: 64 clients for 20 s held 275-320 MiB of RSS (docs/load.md). A
// fixed threshold maps and unmaps each large buffer, and a few arenas bound the small ones: 109
// MiB peak, 84 MiB after, in the same run.
constexpr int kMallocArenas = 4;
constexpr int kMallocMmapThresholdBytes = 256 * 1024;

// Mount options: allow_other (unless the mount is its user's alone) with the caller's
// credentials, default_permissions so that cached path walks are checked too, and the backing
// mount's suid/dev/exec/ro (a user's own mount is always nosuid,nodev: fusermount3 allows no
// other).
std::string mount_options(const struct statvfs& backing, bool allow_other, unsigned max_read) {
  std::string o = allow_other ? "allow_other," : "";
  o += "default_permissions,fsname=diskcond,subtype=diskcond";
  o += !allow_other || backing.f_flag & ST_NOSUID ? ",nosuid" : ",suid";
  o += !allow_other || backing.f_flag & ST_NODEV ? ",nodev" : ",dev";
  if (backing.f_flag & ST_NOEXEC) o += ",noexec";
  if (backing.f_flag & ST_RDONLY) o += ",ro";
  if (max_read > 0) o += ",max_read=" + std::to_string(max_read);
  return o;
}

// A rule that draws from a seed sent without one (dmc always sends one) gets one here, kept in the
// rule so that fault_list shows it.
FaultRule with_seed(FaultRule rule, int64_t now_ns) {
  if (needs_seed(rule) && !rule.has_seed) {
    uint64_t state = static_cast<uint64_t>(now_ns) ^ (static_cast<uint64_t>(getpid()) << 32);
    rule.seed = splitmix64(state);
    rule.has_seed = true;
  }
  return rule;
}

// Everything the control handler needs.
struct Daemon {
  const DaemonConfig& config;
  Conditioner& conditioner;
  ReplyScheduler& scheduler;
  Filesystem& fs;
  ControlServer& control;
  TransitProbe& probe;
  CrashRecorder* crash;              // null unless started -crashable
  std::atomic<bool> stopped{false};  // the mount was taken down through the control socket
  // `dmc crash`: the control thread asks, the main thread applies it once the session has ended
  // (no request runs any more) and answers.
  std::mutex crash_mu;
  std::condition_variable crash_cv;
  std::optional<CrashOptions> crash_asked;  // guarded by crash_mu
  int64_t crash_at_ns = 0;
  std::optional<std::string> crash_reply;  // guarded by crash_mu
  static constexpr auto kCrashWait = std::chrono::seconds(120);

  // Root, or the daemon's own user: a daemon not running as root (`dmc run` by an ordinary user,
  // in its own user namespace) belongs to the user who started it.
  static bool may_change(uid_t peer_uid) { return peer_uid == 0 || peer_uid == geteuid(); }

  std::string handle(const std::string& line, uid_t peer_uid) {
    auto request = decode_request(line);
    if (!request.ok()) return encode_error("bad request: " + request.error());
    switch (request->op) {
      case ControlOp::kStatus:
        return encode_status(
            status_snapshot(config.mount_point, fs, conditioner, scheduler, crash != nullptr));
      case ControlOp::kUpdate:
        if (!may_change(peer_uid)) return encode_error("only root may change a conditioned mount");
        conditioner.set_profile(request->settings.profile);
        fs.quota.set_capacity(request->settings.profile.capacity_bytes, config.root_fd);
        fs.cache.store(request->settings.cache);
        return encode_ok();
      case ControlOp::kStop:
        if (!may_change(peer_uid)) return encode_error("only root may stop a conditioned mount");
        return stop(request->force);
      case ControlOp::kSync:
        return sync();
      case ControlOp::kCrash:
        if (!may_change(peer_uid))
          return encode_error("only root or the mount's own user may crash a conditioned mount");
        return power_cut(request->crash);
      case ControlOp::kFaultList:
        return encode_fault_report(FaultReport{fs.faults.list(), fs.faults.injected()});
      case ControlOp::kFaultLog:
        return encode_fault_log(fs.faults.log());
      case ControlOp::kFaultAdd:
      case ControlOp::kFaultRemove:
      case ControlOp::kFaultClear:
      case ControlOp::kFaultRelease:
        if (!may_change(peer_uid)) return encode_error("only root may change the fault rules");
        return change_faults(*request);
    }
    return encode_error("unknown request");
  }

  // Stalls end or go away with a release, a removal or a clear: the scheduler looks again at when
  // the replies they held are due.
  std::string change_faults(const ControlRequest& request) {
    const int64_t now = conditioner.wall_now();
    switch (request.op) {
      case ControlOp::kFaultAdd:
        return encode_fault_added(fs.faults.add(with_seed(request.rule, now), now));
      case ControlOp::kFaultRemove: {
        const bool removed = fs.faults.remove(request.id, now);
        scheduler.poke();
        if (!removed) return encode_error("no fault rule " + std::to_string(request.id));
        return encode_ok();
      }
      case ControlOp::kFaultRelease: {
        const size_t released = fs.faults.release(now);
        scheduler.poke();
        return encode_released(released);
      }
      default:
        fs.faults.clear(now);
        scheduler.poke();
        return encode_ok();
    }
  }

  // sync(2) for this mount (`dmc sync`; the kernel sends no FUSE_SYNCFS to libfuse 3.14): the
  // backing file system's data to its disk, then the model's journal commit, every dirty byte
  // and a flush. Replies at once with when the model is done; the client waits for that, so the
  // control thread never sleeps.
  std::string sync() {
    const int dir = openat(config.root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const int r = dir < 0 ? -errno : (::syncfs(dir) == 0 ? 0 : -errno);
    if (dir >= 0) close(dir);
    if (r < 0) return encode_error(std::string("syncfs: ") + std::strerror(-r));
    // In wall time; -1 while a stall that lasts until released holds it (the client asks again).
    const int64_t durable = conditioner.wall_when(conditioner.sync_all(conditioner.now()));
    return encode_synced(durable == kNeverNs ? -1 : durable);
  }

  // `dmc crash`: the instant of the cut is now. Aborting the FUSE connection (a forced, lazy
  // unmount) fails every request from here on and ends the session; run_daemon then applies
  // the undo log (apply_crash) and this thread answers with what was lost.
  std::string power_cut(const CrashOptions& options) {
    if (crash == nullptr) {
      return encode_error(config.mount_point +
                          " was not started with -crashable: nothing recorded what a power cut "
                          "would lose (restart it with 'dmc start ... -crashable', or 'dmc run "
                          "... -crashable')");
    }
    std::unique_lock lock(crash_mu);
    if (crash_asked) return encode_error("a crash is already under way");
    crash_at_ns = conditioner.now();
    crash_asked = options;
    probe.pause();
    if (umount2(config.mount_point.c_str(), MNT_FORCE | MNT_DETACH) < 0) {
      const int err = errno;
      crash_asked.reset();
      probe.resume();
      // An ordinary user's `dmc start` mount (fusermount3's) cannot be forced off by its daemon.
      const std::string why =
          err == EPERM && geteuid() != 0
              ? " (a mount an ordinary user started is not the daemon's to force off; use 'dmc run "
                "-crashable', or start it as root)"
              : "";
      return encode_error("cannot cut " + config.mount_point + " off: " + std::strerror(err) + why);
    }
    stopped = true;
    control.close_listener();
    unlink(config.paths.state.c_str());
    if (!crash_cv.wait_for(lock, kCrashWait, [this] { return crash_reply.has_value(); }))
      return encode_error("the daemon's requests did not end in time; nothing was rolled back");
    return *crash_reply;
  }

  // On the main thread, after the FUSE session ended: the crash asked, if any.
  void apply_crash() {
    std::lock_guard lock(crash_mu);
    if (!crash_asked) return;
    conditioner.advance(crash_at_ns);  // the commits and writeback due by the cut happened
    crash_reply =
        encode_crash_report(crash->crash(crash_at_ns, crash_asked->tear, crash_asked->seed));
    crash_cv.notify_all();
  }

  std::string stop(bool force) {
    probe.pause();  // its descriptor of the mount root would make the unmount fail
    const int unmounted =
        geteuid() == 0 || config.allow_other
            ? (umount2(config.mount_point.c_str(), force ? MNT_DETACH : 0) == 0 ? 0 : -errno)
            : fusermount_unmount(config.mount_point, force);
    if (unmounted < 0) {
      const int err = -unmounted;
      probe.resume();
      if (err == EBUSY) {
        // The caller says how to go on (dmc: "'dmc stop <mount> -force' detaches it lazily").
        return encode_error(config.mount_point +
                            " is busy: files or directories under it are in use");
      }
      return encode_error("cannot unmount " + config.mount_point + ": " + std::strerror(err));
    }
    // The directory is free again: a new start may reuse the run files right away.
    stopped = true;
    control.close_listener();
    unlink(config.paths.state.c_str());
    return encode_ok();
  }
};

// Closes every descriptor but 0-2 and `keep`.
void close_other_fds(const std::vector<int>& keep) {
  std::vector<int> open_fds;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      int fd = std::atoi(e->d_name);
      if (fd > 2 && fd != dirfd(d)) open_fds.push_back(fd);
    }
    closedir(d);
  }
  for (int fd : open_fds) {
    bool kept = false;
    for (int k : keep) kept = kept || k == fd;
    if (!kept) close(fd);
  }
}

void redirect_stdio(const std::string& log_path) {
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(log_fd >= 0 ? log_fd : null_fd, 2);
  }
  if (null_fd > 2) close(null_fd);
  if (log_fd > 2) close(log_fd);
}

// Removes the daemon's log when it stayed empty and is still this daemon's (a daemon started
// later for the same directory may have opened the same path).
void remove_empty_log(const std::string& log_path) {
  struct stat mine, there;
  if (fstat(2, &mine) == 0 && stat(log_path.c_str(), &there) == 0 && mine.st_dev == there.st_dev &&
      mine.st_ino == there.st_ino && there.st_size == 0) {
    unlink(log_path.c_str());
  }
}

// The last line libfuse wrote to our stderr (the log), to explain a failure in one line.
std::string last_log_line(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// "<what> (<libfuse's reason>)", or "<what> (see <log>)" when libfuse said nothing.
std::string explain(const std::string& what, const std::string& log_path) {
  const std::string reason = last_log_line(log_path);
  return what + " (" + (reason.empty() ? "see " + log_path : reason) + ")";
}

void report(int ready_fd, const std::string& message) {
  if (ready_fd >= 0) posix::write_all(ready_fd, "error: " + message + "\n");
}

}  // namespace

// Every inode the kernel knows holds an O_PATH descriptor: allow as many as the system does.
void raise_file_limit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  long nr_open = 0;
  if (FILE* f = fopen("/proc/sys/fs/nr_open", "r")) {
    if (fscanf(f, "%ld", &nr_open) != 1) nr_open = 0;
    fclose(f);
  }
  rlimit raised = limit;
  raised.rlim_cur = raised.rlim_max =
      std::max<rlim_t>(limit.rlim_max, static_cast<rlim_t>(nr_open));
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {  // without CAP_SYS_RESOURCE: up to the hard limit
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

int run_daemon(const DaemonConfig& config, int ready_fd) {
  raise_file_limit();
  mallopt(M_ARENA_MAX, kMallocArenas);
  mallopt(M_MMAP_THRESHOLD, kMallocMmapThresholdBytes);
  if (int r = reset_process_credentials(); r < 0) {
    report(ready_fd, std::string("cannot reset credentials: ") + std::strerror(-r));
    return 1;
  }
  struct statvfs backing;
  if (fstatvfs(config.root_fd, &backing) < 0) {
    report(ready_fd, config.mount_point + ": statvfs: " + std::strerror(errno));
    return 1;
  }
  const uint64_t capacity =
      std::max<uint64_t>(static_cast<uint64_t>(backing.f_blocks) * backing.f_frsize, 1 << 20);
  const DaemonKnobs knobs = DaemonKnobs::from_environment();
  MonotonicClock wall_clock;
  // Idle CPUs poll while traffic flows (idle_poll.h); outlives the conditioner, which uses it.
  std::unique_ptr<IdlePoll> idle_poll;
  if (knobs.idle_poll) idle_poll = std::make_unique<IdlePoll>(wall_clock, cpu_latency_device());
  DeviceClock clock(wall_clock);  // stopped by the fault rules' stalls, once attached
  CallerCpus caller_cpus;         // outlives the conditioner, which asks it
  ReplyScheduler scheduler(clock);
  const WritebackParams writeback = machine_writeback_params(capacity);
  Conditioner conditioner(config.settings.profile, capacity, clock, scheduler, writeback);
  conditioner.set_idle_poll(idle_poll.get());
  // Replies that wait go out from their caller's CPU (caller_cpu.h).
  if (knobs.reply_cpu) conditioner.set_caller_cpus(&caller_cpus);
  // A lone request's short wait is spun by its worker (ReplyTimer::kThisThread).
  conditioner.set_worker_spin(knobs.worker_spin);
  // -crashable: the undo log, bounded by the dirty limit (crash_recorder.h).
  std::unique_ptr<CrashRecorder> crash;
  if (config.settings.crashable) {
    crash = std::make_unique<CrashRecorder>(writeback.dirty_limit());
    conditioner.set_durability_listener(&crash->log());
  }
  conditioner.set_transit_lead_enabled(knobs.transit_lead);
  conditioner.set_copy_lead_enabled(knobs.copy_lead);       // CopyBound
  WorkerCpus worker_cpus(affinity_cpus(), [&conditioner] {  // off deep-queue callers' CPUs
    return ReplyTotals{conditioner.replies(), conditioner.backing_bound().replies};
  });
  const int root_copy = dup(config.root_fd);  // the inode table owns (and closes) its copy
  Filesystem fs(root_copy, capacity, conditioner, config.settings.cache, knobs.inode_fd_budget,
                LayoutParams::like_ext4(capacity, backing.f_files));
  fs.ready_fd = ready_fd;
  fs.splicing = {.requests = knobs.fuse_splice, .replies = knobs.splice_replies};
  fs.request_limits = {.read = knobs.max_read, .write = knobs.max_write};
  if (knobs.worker_cpus) fs.worker_cpus = &worker_cpus;
  fs.quota.set_capacity(config.settings.profile.capacity_bytes, config.root_fd);
  fs.mount_point = config.mount_point;
  clock.attach(fs.faults);
  fs.crash = crash.get();
  for (const FaultRule& rule : config.settings.faults)
    fs.faults.add(with_seed(rule, conditioner.wall_now()), conditioner.wall_now());

  const std::string options = mount_options(backing, config.allow_other, knobs.max_read);
  std::vector<const char*> argv = {"diskcond", "-o", options.c_str()};
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  const fuse_lowlevel_ops ops = filesystem_operations();
  fuse_session* se = fuse_session_new(&args, &ops, sizeof(ops), &fs);
  if (se == nullptr) {
    report(ready_fd, explain("cannot create the FUSE session", config.paths.log));
    return 1;
  }
  fuse_set_signal_handlers(se);
  if (fuse_session_mount(se, config.mount_point.c_str()) != 0) {
    report(ready_fd, explain("cannot mount over " + config.mount_point, config.paths.log));
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    return 1;
  }
  const bool ask_killpriv = knobs.killpriv_v2;  // else the kernel's getxattr before each write
  // FUSE over io_uring where the kernel offers it, opt-in (fuse_uring.h; measured in
  // docs/conditioner.md "Transport"). Destroyed after the session: the kernel holds its entries'
  // buffers until the connection is released.
  std::unique_ptr<FuseUring> uring;
  if (knobs.fuse_uring) {
    uring = std::make_unique<FuseUring>(se, fuse_session_fd(se));
    fs.uring = uring.get();
  }
  if (!ask_killpriv) fs.killpriv.never_ask();
  // Requests arrive at the kernel's send where a BPF program can stamp it (send_stamps.h); not
  // with the rings, whose requests are not read through the hooks.
  std::unique_ptr<KernelSendStamps> send_stamps;
  std::unique_ptr<SendOrder> send_order;
  if (uring == nullptr && conditioner.charges_time() && knobs.kernel_arrival) {
    send_stamps = attach_send_stamps(config.mount_point);
    if (send_stamps != nullptr) {
      fs.send_stamps = &send_stamps->table();
      // The stamps also say in which order data requests were sent (send_order.h).
      if (knobs.send_order) {
        send_order = std::make_unique<SendOrder>(send_stamps->table());
        fs.send_order = send_order.get();
        conditioner.set_send_order(send_order.get());
      }
    }
  }
  // The hooks also time one reply write and one request read in four (CopyBound).
  if (ask_killpriv || uring != nullptr || conditioner.copy_lead_enabled() ||
      send_stamps != nullptr) {
    install_session_io(se);
  }

  ControlServer control;
  TransitProbe probe(config.mount_point, fs.probe_stamp, conditioner.transit_bound(), wall_clock);
  if (send_stamps != nullptr) probe.require_kernel_sent();
  Daemon daemon{config, conditioner, scheduler, fs, control, probe, crash.get()};
  auto listening = control.start(
      config.paths.socket,
      [&daemon](const std::string& line, uid_t uid) { return daemon.handle(line, uid); });
  auto written = listening.ok()
                     ? write_state(config.paths.state,
                                   DaemonState{getpid(), config.mount_point, config.paths.socket})
                     : listening;
  int exit_code = 0;
  if (!written.ok()) {
    report(ready_fd, written.error());
    fs.ready_fd = -1;
    exit_code = 1;
  } else {
    // The transport's knobs measure what they do to the floor (docs/conditioner.md "Transport").
    const unsigned threads = knobs.workers > 0 ? knobs.workers : kMaxWorkerThreads;
    if (conditioner.transit_lead_enabled()) probe.start();
    if (knobs.clone_fd || knobs.fuse_splice) {
      // libfuse's own loop: a descriptor per worker, or pipes in place of buffers.
      fuse_loop_config* loop = fuse_loop_cfg_create();
      fuse_loop_cfg_set_max_threads(loop, threads);
      fuse_loop_cfg_set_idle_threads(loop, threads);
      fuse_loop_cfg_set_clone_fd(loop, knobs.clone_fd ? 1 : 0);
      fuse_session_loop_mt(se, loop);
      fuse_loop_cfg_destroy(loop);
    } else {
      run_worker_loop(se, knobs.worker_loop(threads));
    }
    // No request may run on a ring's thread from here on (a crash's rollback follows).
    if (uring != nullptr) uring->stop();
  }
  // The mount is gone (or going): send every reply still queued, then clean up.
  scheduler.drain();
  daemon.apply_crash();  // `dmc crash`: no request runs any more
  control.stop();
  if (!daemon.stopped) {
    fuse_session_unmount(se);
    auto state = read_state(config.paths.state);
    if (state.ok() && state->pid == getpid()) remove_run_files(config.paths);
  }
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  probe.stop();  // after the connection is closed: a probe in flight fails instead of waiting
  remove_empty_log(config.paths.log);
  return exit_code;
}

namespace {

// In the forked daemon process: stdio to the log, no descriptor of the caller's but the readiness
// pipe and the directory, then the daemon's body. Never returns.
[[noreturn]] void become_daemon(const DaemonConfig& config, int ready_fd) {
  redirect_stdio(config.paths.log);
  close_other_fds({ready_fd, config.root_fd});
  if (chdir("/") < 0) _exit(1);
  _exit(run_daemon(config, ready_fd));
}

// The daemon's pid once it wrote "ok <pid>" to `ready_fd` (which this closes), or its one-line
// error; an error too when it said nothing within kReadyTimeoutMs or died first.
Result<pid_t> await_ready(int ready_fd, const std::string& log_path) {
  std::string line;
  char buf[512];
  for (;;) {
    pollfd p{ready_fd, POLLIN, 0};
    int r = poll(&p, 1, kReadyTimeoutMs);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      close(ready_fd);
      return make_error("the daemon did not report readiness in time (see " + log_path + ")");
    }
    ssize_t n = read(ready_fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    line.append(buf, static_cast<size_t>(n));
    if (line.find('\n') != std::string::npos) break;
  }
  close(ready_fd);
  if (line.rfind("ok ", 0) == 0) return static_cast<pid_t>(std::atoi(line.c_str() + 3));
  if (line.rfind("error: ", 0) == 0) {
    std::string message = line.substr(7);
    if (!message.empty() && message.back() == '\n') message.pop_back();
    return make_error(message);
  }
  return make_error("the daemon exited before its mount served (see " + log_path + ")");
}

}  // namespace

namespace {

// A forked child with a close-on-exec pipe for the daemon's ready line (await_ready). The child
// gets 0 and `write_fd`; the parent the child's pid and `read_fd`; each has closed the other end.
struct ReadyFork {
  pid_t pid = -1;
  int read_fd = -1;
  int write_fd = -1;
};

Result<ReadyFork> fork_with_ready_pipe() {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) < 0)
    return make_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = fork();
  if (child < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return make_error(std::string("fork: ") + std::strerror(errno));
  }
  close(pipe_fds[child == 0 ? 0 : 1]);
  if (child == 0) return ReadyFork{0, -1, pipe_fds[1]};
  return ReadyFork{child, pipe_fds[0], -1};
}

}  // namespace

Result<pid_t> spawn_daemon(const DaemonConfig& config) {
  auto forked = fork_with_ready_pipe();
  if (!forked.ok()) return make_error(forked.error());
  if (forked->pid == 0) {
    // First child: new session, then fork the daemon so it is no session leader and is
    // reparented away from the caller.
    setsid();
    const pid_t daemon_pid = fork();
    if (daemon_pid != 0) _exit(daemon_pid < 0 ? 1 : 0);
    become_daemon(config, forked->write_fd);
  }
  int status = 0;
  waitpid(forked->pid, &status, 0);
  // Wait for the daemon's one line (or EOF, when it died before saying anything).
  return await_ready(forked->read_fd, config.paths.log);
}

Result<pid_t> spawn_child_daemon(const DaemonConfig& config) {
  const pid_t parent = getpid();
  auto forked = fork_with_ready_pipe();
  if (!forked.ok()) return make_error(forked.error());
  if (forked->pid == 0) {
    setsid();
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
      _exit(1);  // the caller is gone
    become_daemon(config, forked->write_fd);
  }
  auto ready = await_ready(forked->read_fd, config.paths.log);
  if (!ready.ok()) {  // it may still be starting up: end it, so the caller is left with nothing
    kill(forked->pid, SIGTERM);
    waitpid(forked->pid, nullptr, 0);
    return ready;
  }
  return forked->pid;
}

}  // namespace diskcond::mount
