#include "dmc/mount/conditioned_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "dmc/mount/control_protocol.h"
#include "dmc/mount/control_socket.h"
#include "dmc/mount/daemon.h"
#include "dmc/mount/mount_table.h"
#include "dmc/mount/private_namespace.h"
#include "dmc/mount/run_paths.h"

namespace diskcond::mount {
namespace {

// How long the daemon may take to exit once its mount is down (it sends what is queued first),
// and once it was told to end.
constexpr int kDaemonExitWaitMs = 10000;
constexpr int kDaemonTermWaitMs = 5000;
// The signals passed on to the command, and those left to it (a terminal sends them to its
// whole foreground process group, the command included).
constexpr int kPassedOn[] = {SIGTERM, SIGHUP};
constexpr int kLeftToCommand[] = {SIGINT, SIGQUIT};

volatile sig_atomic_t g_command_pid = 0;

void pass_on(int sig) {
  const pid_t pid = g_command_pid;
  if (pid > 0) kill(pid, sig);
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

// True once `pid` (a child) has been reaped, waiting at most `ms`.
bool reap_within(pid_t pid, int ms) {
  for (int waited = 0;; waited += 5) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (waited >= ms) return false;
    sleep_ms(5);
  }
}

std::string current_directory() {
  char* cwd = getcwd(nullptr, 0);
  std::string path = cwd ? cwd : "";
  std::free(cwd);
  return path;
}

sigset_t handled_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kPassedOn) sigaddset(&set, sig);
  for (int sig : kLeftToCommand) sigaddset(&set, sig);
  return set;
}

// In the forked command process: the caller's signal mask, its working directory looked up
// again (through the mount now), the private run directory for `dmc status`, then exec. Never
// returns; an exec failure's errno goes to `error_fd`.
[[noreturn]] void exec_command(const std::vector<std::string>& argv, const std::string& cwd,
                               const std::string& run_dir, const sigset_t& old_mask, int error_fd) {
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (!cwd.empty() && chdir(cwd.c_str()) < 0) {
    // Gone or unreachable now: the command keeps the directory it inherited.
  }
  setenv("DISKCOND_RUN_DIR", run_dir.c_str(), 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  const int err = errno;
  if (write(error_fd, &err, sizeof(err)) < 0) {
  }
  _exit(err == ENOENT ? 127 : 126);
}

// Runs the command to its end: passes SIGTERM and SIGHUP on, ignores SIGINT and SIGQUIT
// meanwhile (the command gets them from the terminal), and reports how it ended.
CommandEnd run_command(const std::vector<std::string>& argv, const std::string& cwd,
                       const std::string& run_dir) {
  CommandEnd end;
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) < 0) {
    end.exit_code = 126;
    end.error = std::string("pipe: ") + std::strerror(errno);
    return end;
  }
  const sigset_t handled = handled_signals();
  sigset_t old_mask;
  sigprocmask(SIG_BLOCK, &handled, &old_mask);
  const pid_t pid = fork();
  if (pid == 0) {
    close(error_pipe[0]);
    exec_command(argv, cwd, run_dir, old_mask, error_pipe[1]);
  }
  close(error_pipe[1]);
  struct sigaction saved[std::size(kPassedOn) + std::size(kLeftToCommand)];
  size_t n_saved = 0;
  if (pid > 0) {
    g_command_pid = pid;
    struct sigaction forward {};
    forward.sa_handler = pass_on;
    sigemptyset(&forward.sa_mask);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    for (int sig : kPassedOn) sigaction(sig, &forward, &saved[n_saved++]);
    for (int sig : kLeftToCommand) sigaction(sig, &ignore, &saved[n_saved++]);
  }
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid < 0) {
    close(error_pipe[0]);
    end.exit_code = 126;
    end.error = std::string("fork: ") + std::strerror(errno);
    return end;
  }
  int exec_errno = 0;
  ssize_t got;
  while ((got = read(error_pipe[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR) {
  }
  close(error_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_command_pid = 0;
  n_saved = 0;
  for (int sig : kPassedOn) sigaction(sig, &saved[n_saved++], nullptr);
  for (int sig : kLeftToCommand) sigaction(sig, &saved[n_saved++], nullptr);
  if (got == static_cast<ssize_t>(sizeof(exec_errno))) {
    end.exit_code = exec_errno == ENOENT ? 127 : 126;
    end.error = "cannot run '" + argv[0] + "': " + std::strerror(exec_errno);
  } else if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
    end.exit_code = 128 + end.signal;
  } else {
    end.exit_code = WEXITSTATUS(status);
  }
  return end;
}

// Asks the daemon to unmount as `dmc stop` does: the reply line, or why there was none.
Result<std::string> ask_to_stop(const RunPaths& paths, bool force) {
  ControlRequest request;
  request.op = ControlOp::kStop;
  request.force = force;
  return control_call(paths.socket, encode_request(request));
}

// Takes the mount down as `dmc stop` does and reaps the daemon. A mount a process the command
// left behind still uses is detached lazily and served until that process lets go of it, or for
// kDaemonTermWaitMs at most: then the daemon is ended and the process loses it (ENOTCONN). Returns
// what did not go cleanly.
std::vector<std::string> stop_daemon(const std::string& dir, const RunPaths& paths, pid_t daemon) {
  std::vector<std::string> warnings;
  int exit_wait_ms = kDaemonExitWaitMs;
  auto reply = ask_to_stop(paths, false);
  if (!reply.ok() && !is_conditioned_mount(dir)) {
    // Already taken down from inside (`dmc stop`, or `dmc crash` of a -crashable run): the
    // daemon exits, or has, on its own.
  } else if (!reply.ok()) {
    warnings.push_back("the daemon of " + dir + " ended before the command did (" + reply.error() +
                       ")");
  } else if (Status stopped = decode_ack(*reply); !stopped.ok()) {
    warnings.push_back(dir + " was still in use when the command exited (" + stopped.error() +
                       "): detached; what the command left running there keeps it for " +
                       std::to_string(kDaemonTermWaitMs / 1000) + " s at most");
    static_cast<void>(ask_to_stop(paths, true));
    exit_wait_ms = kDaemonTermWaitMs;
  }
  if (!reap_within(daemon, exit_wait_ms)) {
    kill(daemon, SIGTERM);
    if (!reap_within(daemon, kDaemonTermWaitMs)) {
      kill(daemon, SIGKILL);
      waitpid(daemon, nullptr, 0);
      warnings.push_back("the daemon of " + dir + " did not exit; killed it");
    }
  }
  if (is_conditioned_mount(dir) && umount2(dir.c_str(), MNT_DETACH) < 0) {
    warnings.push_back("cannot detach the mount on " + dir + ": " + std::strerror(errno));
  }
  return warnings;
}

// Removes the private run directory; a daemon's log with something in it is kept (a warning
// names it).
void remove_run_directory(const std::string& run_dir, const RunPaths& paths,
                          std::vector<std::string>& warnings) {
  remove_run_files(paths);
  if (rmdir(run_dir.c_str()) == 0) return;
  struct stat st {};
  if (stat(paths.log.c_str(), &st) == 0 && st.st_size > 0) {
    warnings.push_back("the daemon wrote to its log; kept: " + paths.log);
  } else {
    warnings.push_back("cannot remove " + run_dir + ": " + std::strerror(errno));
  }
}

}  // namespace

Result<CommandEnd> run_conditioned_command(const ConditionedCommand& request) {
  const NamespaceSupport support = probe_namespace_support();
  if (std::string problem = private_mount_problem(support); !problem.empty())
    return make_error(problem);
  const std::string base = private_run_base();
  const std::string cwd = current_directory();
  if (Status s = enter_private_mount_namespace(support); !s.ok()) return Error{s.error()};

  if (mkdir(base.c_str(), 0755) < 0 && errno != EEXIST) {
    return make_error("cannot create " + base + ": " + std::strerror(errno));
  }
  std::string run_dir = base + "/dmc-run-XXXXXX";
  if (mkdtemp(run_dir.data()) == nullptr) {
    return make_error("cannot create a run directory in " + base + ": " + std::strerror(errno));
  }
  const RunPaths paths = run_paths_in(run_dir, request.dir);
  const int root_fd = open(request.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) {
    const int err = errno;
    rmdir(run_dir.c_str());
    return make_error(request.dir + ": " + std::strerror(err));
  }
  auto daemon = spawn_child_daemon(DaemonConfig{request.dir, root_fd, request.settings, paths});
  close(root_fd);
  if (!daemon.ok()) {
    unlink(paths.log.c_str());  // its reason is in the error already
    remove_run_files(paths);
    rmdir(run_dir.c_str());
    return Error{request.dir + ": " + daemon.error()};
  }

  CommandEnd end = run_command(request.argv, cwd, run_dir);
  for (std::string& w : stop_daemon(request.dir, paths, *daemon))
    end.warnings.push_back(std::move(w));
  remove_run_directory(run_dir, paths, end.warnings);
  return end;
}

}  // namespace diskcond::mount
