// dmc run through the built binary, for real: the command sees a conditioned FUSE mount on the
// directory while the host namespace never does; its exit status comes back; nothing is left
// behind (no mount, no daemon, no run files); bad input changes nothing; the view is slow inside
// and fast outside. As root, and as an ordinary user (nobody) in a user namespace of its own.
// Skips where the machine cannot: no root to set the test up, no /dev/fuse, no user namespaces.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/profile.h"
#include "tools/bad_input_harness.h"
#include "tools/user_test_support.h"

namespace diskcond::tools {
namespace {

namespace fs = std::filesystem;

double realtime_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

class DmcRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* why = why_not_root_with_fuse()) GTEST_SKIP() << why;
    dir_ = world_.path("dir");
    fs::create_directories(dir_);
    fs::create_directories(world_.path("run"));
    fs::create_directories(world_.path("profiles"));
    fs::create_directories(world_.path("scratch"));  // the command's own files, outside dir_
    std::ofstream(dir_ + "/keep") << "left alone\n";
  }

  std::vector<std::string> env() const { return dmc_world_env(world_); }

  ProgramRun dmc(const std::vector<std::string>& args, std::optional<uid_t> uid = std::nullopt) {
    return run_program(DMC_BINARY, args, env(), world_.path(""), world_.io_dir(), uid);
  }

  // `dmc run <dir_> <profile> -- sh -c <script>`.
  ProgramRun run_sh(const std::string& profile, const std::string& script,
                    std::optional<uid_t> uid = std::nullopt) {
    return dmc({"run", dir_, profile, "--", "sh", "-c", script}, uid);
  }

  // What a command that sees the conditioned mount on dir_ (and not the directory underneath)
  // checks, in sh: its mountinfo has a fuse.diskcond mount there, and dir_'s device differs.
  std::string sees_the_mount() const {
    return "grep -Eq '^[0-9]+ [0-9]+ [0-9:]+ [^ ]+ " + dir_ +
           " .* - fuse.diskcond ' /proc/self/mountinfo && " + "test \"$(stat -c %d " + dir_ +
           ")\" != " + std::to_string(host_device()) + " && grep -q 'left alone' " + dir_ + "/keep";
  }

  dev_t host_device() const {
    struct stat st {};
    ::stat(dir_.c_str(), &st);
    return st.st_dev;
  }

  // After a run: no mount on dir_, no run files, no daemon (nothing mentioning the world).
  void expect_nothing_left(const std::string& when) {
    EXPECT_EQ(mounts_on(dir_), std::vector<std::string>{}) << when;
    std::vector<std::string> run_files;
    for (const auto& entry : fs::recursive_directory_iterator(world_.path("run")))
      run_files.push_back(entry.path());
    EXPECT_EQ(run_files, std::vector<std::string>{}) << when;
    EXPECT_EQ(processes_mentioning(world_.path("")), std::vector<std::string>{}) << when;
  }

  // The whole contract of one user: the command sees the mount, the host never does (checked
  // while the command runs), `dmc status` inside finds the daemon and outside says OFF, files
  // made inside belong to `owner`, exit statuses come back, and nothing is left behind.
  void check_conditions_for_the_command_only(std::optional<uid_t> uid, uid_t owner) {
    const std::vector<std::string> host_mounts = mounts_under(dir_);
    const std::string ready = world_.path("scratch/ready"), go = world_.path("scratch/go"),
                      daemon_pid = world_.path("scratch/daemon.json");
    ProgramRun during;
    std::thread runner([&] {
      during = run_sh("7",
                      sees_the_mount() + " && " + DMC_BINARY + " status " + dir_ + " -json > " +
                          daemon_pid + " && echo made > " + dir_ + "/new && touch " + ready +
                          " || exit 1; i=0; while [ ! -e " + go +
                          " ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; test -e " + go,
                      uid);
    });
    for (int i = 0; i < 3000 && !fs::exists(ready); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const bool was_ready = fs::exists(ready);
    // The host, while the command runs: no mount, and status says OFF.
    EXPECT_EQ(mounts_under(dir_), host_mounts);
    fs::create_directories(world_.path("io-host"));  // not the runner's io_dir: it is in use
    ProgramRun status = run_program(DMC_BINARY, {"status", dir_, "-json"}, env(), world_.path(""),
                                    world_.path("io-host"));
    std::ofstream(go).close();
    runner.join();
    ASSERT_TRUE(was_ready) << "the command never saw the mount: " << during.err;
    EXPECT_EQ(during.code, 0) << during.err;
    EXPECT_EQ(during.err, "");
    EXPECT_EQ(status.code, 0) << status.err;
    EXPECT_NE(status.out.find("\"state\": \"off\""), std::string::npos) << status.out;
    auto inside = nlohmann::json::parse(read_whole_file(daemon_pid), nullptr, false);
    ASSERT_TRUE(inside.is_object() && inside.contains("daemon_pid")) << read_whole_file(daemon_pid);
    EXPECT_EQ(inside["state"], "on");
    EXPECT_EQ(inside["profile"]["name"], "PCIe 3 SSD");
    const std::string daemon = std::to_string(inside["daemon_pid"].get<int>());
    EXPECT_FALSE(fs::exists("/proc/" + daemon)) << "the daemon " << daemon << " is still there";
    struct stat made {};
    ASSERT_EQ(::stat((dir_ + "/new").c_str(), &made), 0)
        << "a file made inside is not in the directory";
    EXPECT_EQ(made.st_uid, owner);
    EXPECT_EQ(read_whole_file(dir_ + "/new"), "made\n");
    expect_nothing_left("after a run");

    for (const auto& [script, code] :
         std::vector<std::pair<std::string, int>>{{"exit 0", 0},
                                                  {"exit 3", 3},
                                                  {"kill -TERM $$", 128 + SIGTERM},
                                                  {"kill -KILL $$", 128 + SIGKILL}}) {
      ProgramRun r = run_sh("7", sees_the_mount() + " && " + script, uid);
      EXPECT_EQ(r.code, code) << script << ": " << r.err;
      EXPECT_EQ(r.err, "") << script;
      expect_nothing_left(script);
    }
    ProgramRun missing = dmc({"run", dir_, "7", "--", "no-such-command-here"}, uid);
    EXPECT_EQ(missing.code, 127);
    EXPECT_EQ(missing.err, "dmc: cannot run 'no-such-command-here': No such file or directory\n");
    expect_nothing_left("a command not found");
  }

  // 4 KiB O_DIRECT reads of a file in dir_ at offsets far apart, backwards (never sequential),
  // timed by dd: inside `dmc run` on profile 0, each pays at least the HDD model's floor for a
  // non-sequential access (a third of the access time: hdd_seek_ns); outside, most are faster.
  void check_slow_inside_and_fast_outside(std::optional<uid_t> uid) {
    const std::string file = dir_ + "/data";
    {
      std::ofstream out(file, std::ios::binary);
      std::string block(1 << 20, 'x');
      for (int i = 0; i < 8; ++i) out << block;
    }
    if (uid) ::chown(file.c_str(), *uid, *uid);
    std::string reads;
    for (int block = 1800; block >= 0; block -= 400) {
      reads += "dd if=" + file + " of=/dev/null bs=4k count=1 skip=" + std::to_string(block) +
               " iflag=direct; ";
    }
    const Profile& profile = builtin_profiles()[0];
    const double floor_s = static_cast<double>(profile.access_time_ns) / 3 * 1e-9;
    ProgramRun inside = run_sh("0", sees_the_mount() + " && { " + reads + "} 2>&1", uid);
    ASSERT_EQ(inside.code, 0) << inside.err << inside.out;
    const std::vector<double> slow = dd_seconds(inside.out);
    ASSERT_EQ(slow.size(), 5u) << inside.out;
    for (double s : slow) EXPECT_GE(s, floor_s * 0.999) << inside.out;
    ProgramRun outside = run_program("/bin/sh", {"-c", "{ " + reads + "} 2>&1"}, env(),
                                     world_.path(""), world_.io_dir(), uid);
    ASSERT_EQ(outside.code, 0) << outside.out;
    const std::vector<double> fast = dd_seconds(outside.out);
    ASSERT_EQ(fast.size(), 5u) << outside.out;
    // The host's own disk is shared: one read may wait behind another program's I/O, so the
    // median says whether the outside view is unconditioned.
    std::vector<double> sorted = fast;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_LT(sorted[sorted.size() / 2], floor_s) << outside.out;
    std::cout << "[ timing ] 4 KiB O_DIRECT reads inside (profile 0, floor " << floor_s * 1e3
              << " ms):";
    for (double s : slow) std::cout << " " << s * 1e3;
    std::cout << " ms; outside:";
    for (double s : fast) std::cout << " " << s * 1e3;
    std::cout << " ms\n";
    expect_nothing_left("timing");
  }

  // Start and stop overhead: the median over `rounds` of `dmc run <dir> 7 -- true` (wall time)
  // and of the time from starting dmc run to the command's first I/O.
  void measure_overhead(std::optional<uid_t> uid, const std::string& who) {
    constexpr int kRounds = 5;
    std::vector<double> total, first_io;
    const std::string stamp = world_.path("scratch/stamp");
    for (int i = 0; i < kRounds; ++i) {
      const double t0 = realtime_seconds();
      ProgramRun r =
          run_sh("7", "date +%s.%N > " + stamp + " && cat " + dir_ + "/keep > /dev/null", uid);
      const double t1 = realtime_seconds();
      ASSERT_EQ(r.code, 0) << r.err;
      total.push_back(t1 - t0);
      first_io.push_back(std::stod(read_whole_file(stamp)) - t0);
    }
    std::sort(total.begin(), total.end());
    std::sort(first_io.begin(), first_io.end());
    std::cout << "[ overhead ] dmc run as " << who << ": time to first I/O "
              << first_io[kRounds / 2] * 1e3 << " ms, whole run of 'true' "
              << total[kRounds / 2] * 1e3 << " ms (medians of " << kRounds << ")\n";
    RecordProperty("first_io_ms_" + who, std::to_string(first_io[kRounds / 2] * 1e3));
    RecordProperty("whole_run_ms_" + who, std::to_string(total[kRounds / 2] * 1e3));
    EXPECT_LT(total[kRounds / 2], 5.0);
  }

  SweepWorld world_{"dmc_run"};
  std::string dir_;
};

TEST_F(DmcRun, AsRootConditionsTheDirectoryForTheCommandOnly) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
  check_conditions_for_the_command_only(std::nullopt, 0);
}

TEST_F(DmcRun, AsRootTheViewIsSlowInsideAndFastOutside) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
  check_slow_inside_and_fast_outside(std::nullopt);
}

TEST_F(DmcRun, AsRootStartAndStopOverhead) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
  measure_overhead(std::nullopt, "root");
}

// `cd <dir> && dmc run . ...`: the command's working directory is the conditioned one, not the
// directory underneath (dmc start would leave such a shell unconditioned).
TEST_F(DmcRun, AWorkingDirectoryInsideIsTheConditionedOne) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
  fs::create_directories(dir_ + "/sub");
  ProgramRun r = run_program(DMC_BINARY,
                             {"run", "..", "7", "--", "sh", "-c",
                              "test \"$(stat -c %d .)\" != " + std::to_string(host_device()) +
                                  " && test \"$(pwd)\" = " + dir_ + "/sub"},
                             env(), dir_ + "/sub", world_.io_dir());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  expect_nothing_left("a working directory inside");
}

// SIGTERM to dmc run (a CI runner's timeout) reaches the command, whose status comes back.
TEST_F(DmcRun, SigtermIsPassedOnToTheCommand) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
  const std::string ready = world_.path("scratch/ready");
  ProgramRun r;
  std::thread runner([&] { r = run_sh("7", "touch " + ready + " && exec sleep 30"); });
  for (int i = 0; i < 3000 && !fs::exists(ready); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // dmc run and its daemon (a fork of it) have the same command line: dmc run is the parent.
  std::vector<pid_t> same;
  for (const std::string& line : processes_mentioning(std::string(DMC_BINARY) + " run " + dir_)) {
    if (line.find(": " + std::string(DMC_BINARY) + " run") != std::string::npos)
      same.push_back(std::stoi(line));
  }
  pid_t dmc_pid = 0;
  for (pid_t pid : same) {
    const std::string status = read_whole_file("/proc/" + std::to_string(pid) + "/status");
    const size_t at = status.find("\nPPid:\t");
    const pid_t parent = at == std::string::npos ? 0 : std::stoi(status.substr(at + 7));
    if (std::find(same.begin(), same.end(), parent) == same.end()) dmc_pid = pid;
  }
  EXPECT_GT(dmc_pid, 0);
  if (dmc_pid > 0) ::kill(dmc_pid, SIGTERM);
  runner.join();
  EXPECT_EQ(r.code, 128 + SIGTERM) << r.err;
  EXPECT_EQ(r.err, "");
  expect_nothing_left("after SIGTERM");
}

TEST_F(DmcRun, BadInputIsOneLineAndChangesNothing) {
  world_.freeze();
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"run", dir_, "0", "true"}, 2},                   // no --
      {{"run", dir_, "0", "--"}, 2},                     // no command
      {{"run", dir_, "No Such Disk", "--", "true"}, 2},  // unknown profile
      {{"run", dir_, "99", "--", "true"}, 2},
      {{"run", world_.path("missing"), "0", "--", "true"}, 2},  // no such directory
      {{"run", dir_ + "/keep", "0", "--", "true"}, 2},          // not a directory
      {{"run", "/proc", "0", "--", "true"}, 2},
      {{"run", dir_, "0", "-boot", "--", "true"}, 2},
  };
  for (const auto& [args, code] : cases) {
    for (std::optional<uid_t> uid : {std::optional<uid_t>(), std::optional<uid_t>(kNobody)}) {
      ProgramRun r = dmc(args, uid);
      expect_rejected("dmc", args, code, r);
      world_.expect_unchanged("dmc " + shown_words(args) + (uid ? " as nobody" : ""));
    }
  }
}

TEST_F(DmcRun, ADirectoryConditionedByStartIsRefused) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
  ProgramRun started = dmc({"start", dir_, "7"});
  ASSERT_EQ(started.code, 0) << started.err;
  std::shared_ptr<void> stop_at_end(nullptr, [&](void*) { dmc({"stop", dir_, "-force"}); });
  world_.freeze();
  ProgramRun r = run_sh("0", "exit 0");
  expect_rejected("dmc", {"run", dir_}, 4, r);
  EXPECT_NE(r.err.find("is already conditioned (profile 'PCIe 3 SSD')"), std::string::npos)
      << r.err;
}

// An ordinary user (a uid of its own), in a user namespace of its own, on a directory it owns.
class DmcRunAsUser : public DmcRun {
 protected:
  void SetUp() override {
    DmcRun::SetUp();
    if (IsSkipped()) return;
    if (!user_namespaces_work_for(user_)) {
      GTEST_SKIP()
          << "user namespaces are disabled for ordinary users here (user.max_user_namespaces, "
             "kernel.unprivileged_userns_clone)";
    }
    for (const std::string& path :
         {dir_, dir_ + "/keep", world_.path("run"), world_.path("scratch")}) {
      ::chown(path.c_str(), user_, user_);
    }
  }
  const uid_t user_ = unused_uid();
  FuseDeviceOpen fuse_;  // 0666 for the test, as most distributions have it
};

TEST_F(DmcRunAsUser, ConditionsTheDirectoryForTheCommandOnly) {
  check_conditions_for_the_command_only(user_, user_);
}

// The daemon never has more rights than the user: root's file stays root's, and unreadable.
TEST_F(DmcRunAsUser, TheUserGetsNoMoreRightsThanOutside) {
  std::ofstream(dir_ + "/roots") << "root's\n";
  std::ofstream(dir_ + "/secret") << "root's only\n";
  ::chmod((dir_ + "/secret").c_str(), 0600);
  ProgramRun r =
      run_sh("7",
             sees_the_mount() + " && test \"$(stat -c %u " + dir_ +
                 "/roots)\" = 65534 && ! (echo x >> " + dir_ + "/roots) 2>/dev/null && ! cat " +
                 dir_ + "/secret 2>/dev/null && ! chmod 0666 " + dir_ + "/roots 2>/dev/null",
             user_);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_whole_file(dir_ + "/roots"), "root's\n");
  expect_nothing_left("no more rights");
}

TEST_F(DmcRunAsUser, TheViewIsSlowInsideAndFastOutside) {
  check_slow_inside_and_fast_outside(user_);
}

TEST_F(DmcRunAsUser, StartAndStopOverhead) {
  measure_overhead(user_, "user");
}

// Runs `dmc <args>` as `uid` inside a user namespace (all of ids 0-65535 mapped to themselves, as
// root may) whose user.max_user_namespaces is 0: a machine with user namespaces disabled, made
// without touching the host's sysctl. The exit status and stderr, or code -1.
ProgramRun dmc_with_user_namespaces_disabled(const std::vector<std::string>& args,
                                             const std::vector<std::string>& env, uid_t uid,
                                             const std::string& io_dir) {
  int unshared[2], go[2];
  ProgramRun run;
  if (::pipe(unshared) != 0 || ::pipe(go) != 0) return run;
  const std::string err_path = io_dir + "/stderr";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(go[1]);
    ::close(unshared[0]);
    if (::unshare(CLONE_NEWUSER) != 0) ::_exit(120);
    static_cast<void>(::write(unshared[1], "x", 1));
    ::close(unshared[1]);
    char byte;
    if (::read(go[0], &byte, 1) != 1) ::_exit(121);  // the parent wrote the maps
    std::ofstream("/proc/sys/user/max_user_namespaces") << "0\n";
    if (read_whole_file("/proc/sys/user/max_user_namespaces") != "0\n") ::_exit(122);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err < 0 || ::dup2(err, 2) < 0) ::_exit(123);
    if (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0) ::_exit(124);
    std::vector<std::string> argv_text = {DMC_BINARY};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv, envp;
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_text = env;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    ::execve(DMC_BINARY, argv.data(), envp.data());
    ::_exit(125);
  }
  ::close(go[0]);
  ::close(unshared[1]);
  char byte;
  static_cast<void>(::read(unshared[0], &byte, 1));  // the child is in its namespace: map it
  ::close(unshared[0]);
  const std::string map = "0 0 65536\n";
  std::ofstream("/proc/" + std::to_string(pid) + "/uid_map") << map;
  std::ofstream("/proc/" + std::to_string(pid) + "/gid_map") << map;
  static_cast<void>(::write(go[1], "x", 1));
  ::close(go[1]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.err = read_whole_file(err_path);
  return run;
}

TEST_F(DmcRunAsUser, DisabledUserNamespacesAreOneLineSayingWhatToDo) {
  world_.freeze();
  ProgramRun r = dmc_with_user_namespaces_disabled({"run", dir_, "0", "--", "true"}, env(), user_,
                                                   world_.io_dir());
  ASSERT_LT(r.code, 120) << "could not set the test up (step " << r.code - 120 << ")";
  expect_rejected("dmc", {"run", dir_, "0"}, 1, r);
  EXPECT_EQ(r.err, "dmc: cannot condition " + dir_ +
                       " for the command: user namespaces are disabled (user.max_user_namespaces = "
                       "0): enable them "
                       "(sysctl -w user.max_user_namespaces=15000), or run dmc run as root\n");
  world_.expect_unchanged("dmc run with user namespaces disabled");
}

TEST_F(DmcRunAsUser, AnInaccessibleFuseDeviceIsOneLineSayingWhatToDo) {
  ASSERT_EQ(::chmod("/dev/fuse", 0600), 0);
  world_.freeze();
  ProgramRun r = run_sh("0", "exit 0", user_);
  ::chmod("/dev/fuse", 0666);  // fuse_ puts back the machine's mode at the end
  expect_rejected("dmc", {"run", dir_, "0"}, 1, r);
  EXPECT_EQ(r.err,
            "dmc: cannot condition " + dir_ +
                " for the command: /dev/fuse is not accessible to this user (mode 0600): give it "
                "mode 0666, "
                "as most distributions do (chmod 0666 /dev/fuse, or a udev rule: KERNEL==\"fuse\", "
                "MODE=\"0666\")\n");
  world_.expect_unchanged("dmc run with /dev/fuse 0600");
}

}  // namespace
}  // namespace diskcond::tools
