// Integration, rootless (issue 17: "rootless mounts pass the integrity tests, adapted: the user's
// own files"): an ordinary user (nobody) starts their own directory with the built `dmc start`
// (fusermount3, no allow_other), four of their clients run the seeded random operations of
// op_engine.h through it, checked after every step; every file is compared through the mount, the
// user stops it with `dmc stop`, and every file is compared again in the backing directory.
//
// The user's part runs in a child process that has dropped to the user's uid and gid (it reports
// mismatches on stderr and in its exit status). Skips where the machine cannot: no root to set the
// test up, no /dev/fuse, no fusermount3, no passwd entry for nobody (fusermount3 needs one).
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "dmc/mount/mount_test_support.h"
#include "harness/integrity/concurrent_clients.h"

namespace diskcond::mount::testing {
namespace {

constexpr uid_t kNobody = 65534;

// Runs DMC_BINARY with `args` and `env`, as the calling process's user; its exit status (-1 when
// it could not run or was killed). Output goes to the test's own stdout and stderr.
int run_dmc(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<char*> argv{const_cast<char*>(DMC_BINARY)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execve(DMC_BINARY, argv.data(), envp.data());
    ::_exit(127);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// The user's part, in the child: start, run and verify, stop, verify the backing directory.
// Returns the exit status: 0 when every check passed, 1-100 mismatches, 101 start failed, 102
// stop failed.
int users_run(const std::string& dir, const std::vector<std::string>& env) {
  if (run_dmc({"start", dir, "7"}, env) != 0) return 101;
  harness::integrity::ClientsOptions o;
  o.engine.dir = dir;
  o.clients = 4;
  o.seed = 17;
  o.total_ops = 2000;
  const harness::integrity::ClientsRun run = harness::integrity::run_clients(o);
  std::vector<harness::integrity::Mismatch> found = run.mismatches();
  for (const auto& m : harness::integrity::verify_clients(run, dir)) found.push_back(m);
  if (run_dmc({"stop", dir}, env) != 0) return 102;
  for (auto m : harness::integrity::verify_clients(run, dir)) {
    m.detail = "in the backing directory after stop: " + m.detail;
    found.push_back(m);
  }
  std::cout << "integrity as uid " << ::getuid() << ": ops=" << run.steps()
            << " mismatches=" << found.size() << std::endl;
  for (const auto& m : found) std::cerr << m.describe() << "\n";
  if (run.steps() != o.total_ops)
    std::cerr << "ran " << run.steps() << " of " << o.total_ops << "\n";
  if (found.empty() && run.steps() != o.total_ops) return 100;
  return static_cast<int>(std::min<size_t>(found.size(), 100));
}

TEST(MountIntegrityAsUser, RandomOperationsOnAUsersOwnMount) {
  if (::geteuid() != 0) GTEST_SKIP() << "the test needs root to set itself up";
  if (::access("/dev/fuse", F_OK) != 0) GTEST_SKIP() << "no /dev/fuse";
  if (::access("/usr/bin/fusermount3", X_OK) != 0 && ::access("/bin/fusermount3", X_OK) != 0)
    GTEST_SKIP() << "no fusermount3 (the fuse3 package)";
  if (::getpwuid(kNobody) == nullptr) GTEST_SKIP() << "no passwd entry for uid 65534";
  FuseDeviceOpen fuse;  // 0666 for the test, as most distributions have it

  char tmpl[] = "/tmp/diskcond_integrity_user.XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string world = tmpl;
  ::chmod(world.c_str(), 0755);
  const std::string dir = world + "/dir", run = world + "/run", state = world + "/state";
  for (const std::string& d : {dir, run, state}) ASSERT_EQ(::mkdir(d.c_str(), 0755), 0) << d;
  ::chmod(run.c_str(), 01777);  // users make their own run directory in it, like /tmp
  ASSERT_EQ(::chown(dir.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chown(state.c_str(), kNobody, kNobody), 0);
  const std::vector<std::string> env = {"DISKCOND_RUN_DIR=" + run, "DISKCOND_STATE_DIR=" + state,
                                        "PATH=/usr/bin:/bin", "LC_ALL=C"};

  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)
      ::_exit(103);
    ::_exit(users_run(dir, env));
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "the user's process was killed";
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    EXPECT_NE(code, 101) << "dmc start as the user failed (its error is above)";
    EXPECT_NE(code, 102) << "dmc stop as the user failed (its error is above)";
    EXPECT_NE(code, 103) << "could not become uid 65534";
    EXPECT_EQ(code, 0) << "mismatches or missing operations (described above)";
  }
  // Whatever happened, nothing is left mounted.
  if (is_conditioned_mount(dir) && run_dmc({"stop", dir, "-force"}, env) != 0)
    ::umount2(dir.c_str(), MNT_DETACH);
  std::error_code ignored;
  std::filesystem::remove_all(world, ignored);
}

}  // namespace
}  // namespace diskcond::mount::testing
