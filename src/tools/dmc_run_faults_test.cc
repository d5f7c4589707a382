// dmc run -faults FILE -crashable through the built binary, for real: the command's mount starts
// with the file's rules (a read fails as the rule says), `dmc status` inside says crashable, the
// command crashes its own directory (as root, and as an ordinary user in a user namespace of its
// own), an unsynced overwrite is lost, and dmc run tears down without a warning. A missing faults
// file or a bad rule is one line, exit 2, nothing mounted. Skips where the machine cannot: no
// root to set the test up, no /dev/fuse, no user namespaces (for the user's case).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/bad_input_harness.h"
#include "tools/user_test_support.h"

namespace diskcond::tools {
namespace {

namespace fs = std::filesystem;

class DmcRunFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* why = why_not_root_with_fuse()) GTEST_SKIP() << why;
    dir_ = world_.path("dir");
    for (const char* sub : {"dir", "run", "profiles", "scratch", "faults"})
      fs::create_directories(world_.path(sub));
    std::ofstream(dir_ + "/keep") << "left alone\n";
    std::ofstream(dir_ + "/bad") << "unreadable through the rule\n";
    std::ofstream(rules_) << "# the command's reads of bad fail\npath=bad ops=read error=EIO\n";
  }

  std::vector<std::string> env() const { return dmc_world_env(world_); }

  ProgramRun dmc(const std::vector<std::string>& args, std::optional<uid_t> uid = std::nullopt) {
    return run_program(DMC_BINARY, args, env(), world_.path(""), world_.io_dir(), uid);
  }

  // The whole one-line story, as `uid`: the rule holds inside, status says crashable with one
  // rule, an overwrite not made durable is lost by the command's own `dmc crash`, and afterwards
  // the directory holds what it held before, with nothing left behind.
  void check_faults_and_crash_in_one_line(std::optional<uid_t> uid) {
    const std::string dmc_bin = DMC_BINARY;
    const std::string status = world_.path("scratch/status.json");
    const std::string crash = world_.path("scratch/crash.txt");
    const std::string script =
        "cat " + dir_ + "/bad >/dev/null 2>&1 && exit 10; " +  // the rule: EIO
        dmc_bin + " status " + dir_ + " -json > " + status + " || exit 11; " +
        "printf NEW! | dd of=" + dir_ + "/keep conv=notrunc status=none || exit 12; " +
        "grep -q '^NEW! alone' " + dir_ + "/keep || exit 13; " + dmc_bin + " crash " + dir_ +
        " -seed 1 > " + crash + " || exit 14; " +
        // The mount is gone for the rest of the command: the directory as the cut left it.
        "grep -q '^left alone' " + dir_ + "/keep || exit 15";
    ProgramRun r =
        dmc({"run", dir_, "7", "-faults", rules_, "-crashable", "--", "sh", "-c", script}, uid);
    EXPECT_EQ(r.code, 0) << r.err << r.out << read_whole_file(crash);
    EXPECT_EQ(r.err, "dmc: fault rule 1: path=bad ops=read error=EIO\n");  // no teardown warning
    auto inside = nlohmann::json::parse(read_whole_file(status), nullptr, false);
    ASSERT_TRUE(inside.is_object()) << read_whole_file(status);
    EXPECT_EQ(inside["state"], "on");
    EXPECT_EQ(inside["crashable"], true);
    EXPECT_EQ(inside["counters"]["fault_rules"], 1);
    // cat's read, and the kernel's readahead of the same page, may each be failed.
    EXPECT_GE(inside["counters"]["faults_injected"].get<int>(), 1);
    EXPECT_EQ(read_whole_file(crash).rfind("crashed " + dir_ + " (seed 1, tear none): 4 bytes", 0),
              0u)
        << read_whole_file(crash);
    EXPECT_EQ(read_whole_file(dir_ + "/keep"), "left alone\n");
    EXPECT_EQ(mounts_on(dir_), std::vector<std::string>{});
    std::vector<std::string> run_files;
    for (const auto& entry : fs::recursive_directory_iterator(world_.path("run")))
      run_files.push_back(entry.path());
    EXPECT_EQ(run_files, std::vector<std::string>{});
    EXPECT_EQ(processes_mentioning(world_.path("")), std::vector<std::string>{});
  }

  SweepWorld world_{"dmc_run_faults"};
  std::string dir_;
  const std::string rules_ = world_.path("faults/eio.rules");
};

TEST_F(DmcRunFaults, AsRootTheCommandGetsTheRulesAndCrashesItsDirectory) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
  check_faults_and_crash_in_one_line(std::nullopt);
}

TEST_F(DmcRunFaults, AsAUserTheCommandGetsTheRulesAndCrashesItsDirectory) {
  const uid_t user = unused_uid();
  if (!user_namespaces_work_for(user))
    GTEST_SKIP() << "user namespaces are disabled for ordinary users here";
  FuseDeviceOpen fuse;  // 0666 for the test, as most distributions have it
  // The user's own settings store (dmc crash locks it), as theirs is under their home.
  fs::create_directories(world_.path("state"));
  for (const std::string& path : {dir_, dir_ + "/keep", dir_ + "/bad", world_.path("run"),
                                  world_.path("scratch"), world_.path("state")}) {
    ASSERT_EQ(::chown(path.c_str(), user, user), 0) << path;
  }
  check_faults_and_crash_in_one_line(user);
}

// Without -crashable the command's `dmc crash` is refused (exit 4) and nothing is lost.
TEST_F(DmcRunFaults, WithoutCrashableTheCommandCannotCrash) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
  ProgramRun r = dmc({"run", dir_, "7", "--", "sh", "-c",
                      std::string(DMC_BINARY) + " crash " + dir_ + " -seed 1; echo $?"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "4\n");
  EXPECT_EQ(mounts_on(dir_), std::vector<std::string>{});
}

TEST_F(DmcRunFaults, AMissingFileOrABadRuleIsOneLineAndMountsNothing) {
  const std::string bad_rule = world_.path("faults/bad.rules");
  const std::string bad_toml = world_.path("faults/bad.toml");
  std::ofstream(bad_rule) << "ops=read error=EIO\nops=reed error=EIO\n";
  std::ofstream(bad_toml) << "[[rule]]\nstall = \"1s\"\nops = \"read\"\n";
  world_.freeze();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", dir_, "0", "-faults", world_.path("faults/missing"), "--", "true"},
       "dmc: cannot read the faults file '" + world_.path("faults/missing") + "'\n"},
      {{"run", dir_, "0", "-faults", bad_rule, "--", "true"},
       "dmc: " + bad_rule +
           ":2: unknown operation 'reed' (read, write, fsync, open, create, unlink, rename, "
           "mkdir, rmdir, setattr or all)\n"},
      {{"run", dir_, "0", "-faults", bad_toml, "-crashable", "--", "true"},
       "dmc: " + bad_toml +
           ":1: ops does not go with stall= (it takes stall=, at=, period=, p=, seed)\n"},
  };
  for (const auto& [args, message] : cases) {
    for (std::optional<uid_t> uid : {std::optional<uid_t>(), std::optional<uid_t>(kNobody)}) {
      ProgramRun r = dmc(args, uid);
      expect_rejected("dmc", args, 2, r);
      EXPECT_EQ(r.err, message);
      world_.expect_unchanged("dmc " + shown_words(args) + (uid ? " as nobody" : ""));
    }
  }
}

}  // namespace
}  // namespace diskcond::tools
