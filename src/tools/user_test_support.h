// What the tests that run dmc as an ordinary user share: an unused uid, the mount table and the
// processes a test left behind, /dev/fuse opened to users for the test, dd's timings.
#pragma once

#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "dmc/mount/mount_test_support.h"
#include "tools/bad_input_harness.h"

namespace diskcond::tools {

using mount::testing::FuseDeviceOpen;

inline constexpr uid_t kNobody = 65534;

// Why a test that runs dmc as root and as users cannot run here (for GTEST_SKIP), or null.
inline const char* why_not_root_with_fuse() {
  if (::geteuid() != 0) return "the test needs root to set itself up (and to run as root)";
  if (::access("/dev/fuse", F_OK) != 0) return "no /dev/fuse";
  return nullptr;
}

// A uid and gid (the same number) no user or group has here: an ordinary user made for the test
// with nothing to clean up (the kernel needs no passwd entry), the first above `after`. Not nobody:
// 65534 is the overflow id a user namespace shows for every unmapped owner, so nobody would seem to
// own everything.
inline uid_t unused_uid(uid_t after = 60999) {
  for (uid_t uid = after + 1; uid < 62000; ++uid) {
    if (::getpwuid(uid) == nullptr && ::getgrgid(uid) == nullptr) return uid;
  }
  return kNobody;
}

// True when `uid` may make a user namespace here (a child tries and says).
inline bool user_namespaces_work_for(uid_t uid) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0) ::_exit(2);
    ::_exit(::unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The environment dmc gets in a test world: the world's own settings store, profiles and run
// directory (state/, profiles/, run/ under it), a plain PATH and the C locale.
inline std::vector<std::string> dmc_world_env(const SweepWorld& world) {
  return {"DISKCOND_STATE_DIR=" + world.path("state"),
          "DISKCOND_PROFILE_DIR=" + world.path("profiles"), "DISKCOND_RUN_DIR=" + world.path("run"),
          "PATH=/usr/bin:/bin", "LC_ALL=C"};
}

// The lines of /proc/self/mountinfo whose mount point is exactly `dir`.
inline std::vector<std::string> mounts_on(const std::string& dir) {
  std::vector<std::string> lines;
  for (const std::string& line : mounts_under(dir)) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, mount_point;
    fields >> id >> parent >> dev >> root >> mount_point;
    if (mount_point == dir) lines.push_back(line);
  }
  return lines;
}

// "<pid>" of processes whose command line mentions `word` (a test's own directory).
inline std::vector<std::string> processes_mentioning(const std::string& word) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (!std::all_of(pid.begin(), pid.end(), ::isdigit) || pid == std::to_string(::getpid()))
      continue;
    std::string cmdline = read_whole_file(entry.path().string() + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(word) != std::string::npos) found.push_back(pid + ": " + cmdline);
  }
  return found;
}

// The seconds of every "... copied, <s> s, ..." line dd printed.
inline std::vector<double> dd_seconds(const std::string& text) {
  std::vector<double> seconds;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(" copied, ");
    if (at != std::string::npos) seconds.push_back(std::stod(line.substr(at + 9)));
  }
  return seconds;
}

}  // namespace diskcond::tools
