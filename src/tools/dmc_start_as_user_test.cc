// `dmc start` by an ordinary user (issue 17, item 2), through the built binary, for real: a user
// conditions a directory they own through fusermount3 and the mount is theirs alone; they may
// change and stop it, nobody else but root may; they may not condition what is not theirs; the
// daemon has no more rights than they have. Skips where the machine cannot: no root to set the
// test up, no /dev/fuse, no fusermount3.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/profile.h"
#include "tools/bad_input_harness.h"
#include "tools/user_test_support.h"

namespace diskcond::tools {
namespace {

namespace fs = std::filesystem;

class DmcStartAsUser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "the test needs root to set itself up";
    if (::access("/dev/fuse", F_OK) != 0) GTEST_SKIP() << "no /dev/fuse";
    if (::access("/usr/bin/fusermount3", X_OK) != 0 && ::access("/bin/fusermount3", X_OK) != 0)
      GTEST_SKIP() << "no fusermount3 (the fuse3 package)";
    dir_ = world_.path("dir");
    for (const char* sub : {"dir", "run", "state", "profiles", "user-state", "scratch"})
      fs::create_directories(world_.path(sub));
    std::ofstream(dir_ + "/keep") << "left alone\n";
    std::ofstream(dir_ + "/secret") << "root's only\n";
    ::chmod((dir_ + "/secret").c_str(), 0600);
    for (const std::string& path : {dir_, dir_ + "/keep", world_.path("user-state")})
      ::chown(path.c_str(), user_, user_);
    // Users make their own run directory (run/user-<uid>) in the shared one, like /tmp.
    ::chmod(world_.path("run").c_str(), 01777);
    ::chmod(world_.path("scratch").c_str(), 01777);
  }
  void TearDown() override {
    if (!mounts_on(dir_).empty()) dmc({"stop", dir_, "-force"});
  }

  // `dmc <args>` as root (no uid) or as `uid`, each with their own settings store; the run
  // directory is shared, as /tmp is.
  ProgramRun dmc(const std::vector<std::string>& args, std::optional<uid_t> uid = std::nullopt) {
    const std::string state = uid ? world_.path("user-state") : world_.path("state");
    return run_program(
        DMC_BINARY, args,
        {"DISKCOND_STATE_DIR=" + state, "DISKCOND_PROFILE_DIR=" + world_.path("profiles"),
         "DISKCOND_RUN_DIR=" + world_.path("run"), "PATH=/usr/bin:/bin", "LC_ALL=C"},
        world_.path(""), world_.io_dir(), uid);
  }

  ProgramRun sh(const std::string& script, std::optional<uid_t> uid) {
    return run_program("/bin/sh", {"-c", script}, {"PATH=/usr/bin:/bin", "LC_ALL=C"},
                       world_.path(""), world_.io_dir(), uid);
  }

  // `dmc status dir_ -json` as `uid` (root without one), parsed; null when it is not JSON.
  nlohmann::json status(std::optional<uid_t> uid = std::nullopt) {
    ProgramRun r = dmc({"status", dir_, "-json"}, uid);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  }

  // `dmc start dir_ [profile]` as the user ("": their stored settings).
  void start_as_user(const std::string& profile) {
    std::vector<std::string> args = {"start", dir_};
    if (!profile.empty()) args.push_back(profile);
    ProgramRun r = dmc(args, user_);
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_EQ(r.err, "");
  }

  // No mount, no daemon, no run files of the user's left.
  void expect_nothing_left(const std::string& when) {
    EXPECT_EQ(mounts_on(dir_), std::vector<std::string>{}) << when;
    EXPECT_EQ(processes_mentioning(world_.path("")), std::vector<std::string>{}) << when;
    std::vector<std::string> run_files;
    const std::string user_run = world_.path("run/user-" + std::to_string(user_));
    if (fs::exists(user_run)) {
      for (const auto& entry : fs::directory_iterator(user_run))
        if (entry.path().extension() != ".log") run_files.push_back(entry.path());
    }
    EXPECT_EQ(run_files, std::vector<std::string>{}) << when;
  }

  SweepWorld world_{"dmc_start_user"};
  std::string dir_;
  // fusermount3 wants the user in the passwd database: nobody. Any other user will do for the
  // one who is refused.
  const uid_t user_ = kNobody;
  const uid_t other_ = unused_uid();
  FuseDeviceOpen fuse_;  // 0666 for the test, as most distributions have it
};

TEST_F(DmcStartAsUser, AUserConditionsTheirOwnDirectoryAndStopsIt) {
  start_as_user("0");
  const std::vector<std::string> mounts = mounts_on(dir_);
  ASSERT_EQ(mounts.size(), 1u);
  // Mounted by fusermount3 for the user: their user_id, and no allow_other.
  EXPECT_NE(mounts[0].find(" - fuse.diskcond "), std::string::npos) << mounts[0];
  EXPECT_NE(mounts[0].find("user_id=" + std::to_string(user_) + ","), std::string::npos)
      << mounts[0];
  EXPECT_EQ(mounts[0].find("allow_other"), std::string::npos) << mounts[0];

  // The user and root both see it on, with its profile.
  for (std::optional<uid_t> who : {std::optional<uid_t>(user_), std::optional<uid_t>()}) {
    nlohmann::json st = status(who);
    ASSERT_TRUE(st.is_object());
    EXPECT_EQ(st["state"], "on");
    EXPECT_EQ(st["profile"]["name"], "Faulty 5400 HDD");
  }
  // The user works in it; the files are theirs on the directory underneath.
  ProgramRun work =
      sh("echo made > " + dir_ + "/new && grep -q 'left alone' " + dir_ + "/keep", user_);
  EXPECT_EQ(work.code, 0) << work.err;

  ProgramRun changed = dmc({"select", dir_, "3"}, user_);
  EXPECT_EQ(changed.code, 0) << changed.err;
  EXPECT_EQ(status(user_)["profile"]["name"], "Slow SSD");
  // Their own mount's fault rules too; nobody else's.
  ProgramRun rule = dmc({"fault", "add", dir_, "path=*.db", "ops=read", "error=EIO"}, user_);
  EXPECT_EQ(rule.code, 0) << rule.err;
  EXPECT_EQ(dmc({"fault", "add", dir_, "path=*.db", "ops=read", "error=EIO"}, other_).code, 3);
  ProgramRun cleared = dmc({"fault", "clear", dir_}, user_);
  EXPECT_EQ(cleared.code, 0) << cleared.err;

  ProgramRun stopped = dmc({"stop", dir_}, user_);
  EXPECT_EQ(stopped.code, 0) << stopped.err;
  expect_nothing_left("after the user's stop");
  struct stat made {};
  ASSERT_EQ(::stat((dir_ + "/new").c_str(), &made), 0);
  EXPECT_EQ(made.st_uid, user_);
  EXPECT_EQ(read_whole_file(dir_ + "/new"), "made\n");

  // Started again from the user's own stored settings (no profile named).
  start_as_user("");
  EXPECT_EQ(status(user_)["profile"]["name"], "Slow SSD");
  EXPECT_EQ(dmc({"stop", dir_}, user_).code, 0);
  expect_nothing_left("after the second stop");
}

// Another user may neither change nor stop it (exit 3, one line, nothing changed); root may stop.
TEST_F(DmcStartAsUser, OnlyTheUserAndRootMayChangeIt) {
  start_as_user("0");
  const nlohmann::json before = status();
  const std::string whose = "(conditioned by uid " + std::to_string(user_) +
                            ") needs root: without root, dmc changes " +
                            "only your own directories and mounts; run it with sudo\n";
  for (const auto& [command, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"select", {"select", dir_, "3"}},
           {"configure", {"configure", dir_, "SSD", "1ms", "100", "100"}},
           {"stop", {"stop", dir_}},
           {"stop", {"stop", dir_, "-force"}},
           {"start", {"start", dir_, "3"}}}) {
    ProgramRun r = dmc(args, other_);
    expect_rejected("dmc", args, 3, r);
    EXPECT_EQ(r.err, "dmc: 'dmc " + command + "' on " + dir_ + " " + whose);
    EXPECT_EQ(status()["profile"], before["profile"]);
  }
  // The mount is the user's alone: others, root included, cannot look inside.
  EXPECT_NE(sh("ls " + dir_, other_).code, 0);
  struct stat st {};
  EXPECT_NE(::stat((dir_ + "/keep").c_str(), &st), 0);
  EXPECT_EQ(errno, EACCES);

  ProgramRun by_root = dmc({"stop", dir_});
  EXPECT_EQ(by_root.code, 0) << by_root.err;
  expect_nothing_left("after root's stop");
}

// A user conditions only directories of their own, never with -boot, and the daemon gives them
// nothing the directory underneath would not: root's 0600 file stays unreadable.
TEST_F(DmcStartAsUser, OnlyTheirOwnDirectoriesAndNoMoreRights) {
  fs::create_directories(world_.path("roots"));
  world_.freeze();
  ProgramRun theirs_not = dmc({"start", world_.path("roots"), "0"}, user_);
  expect_rejected("dmc", {"start", "roots", "0"}, 3, theirs_not);
  EXPECT_EQ(theirs_not.err, "dmc: 'dmc start' on " + world_.path("roots") +
                                " (owned by uid 0) needs root: without root, dmc changes only "
                                "your own directories and mounts; run it with sudo\n");
  ProgramRun boot = dmc({"start", dir_, "0", "-boot"}, user_);
  expect_rejected("dmc", {"start", "dir", "0", "-boot"}, 3, boot);
  world_.expect_unchanged("refused starts");

  start_as_user("7");
  ProgramRun r = sh("! cat " + dir_ + "/secret 2>/dev/null && ! (echo x >> " + dir_ +
                        "/secret) 2>/dev/null && test \"$(stat -c %u " + dir_ + "/secret)\" = 0",
                    user_);
  EXPECT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(dmc({"stop", dir_}, user_).code, 0);
  EXPECT_EQ(read_whole_file(dir_ + "/secret"), "root's only\n");
}

// The user's mount is conditioned: 4 KiB O_DIRECT reads far apart pay at least the HDD model's
// floor for a non-sequential access (a third of profile 0's access time). Never faster.
TEST_F(DmcStartAsUser, TheDirectoryIsSlowForTheUser) {
  const std::string file = dir_ + "/data";
  {
    std::ofstream out(file, std::ios::binary);
    std::string block(1 << 20, 'x');
    for (int i = 0; i < 8; ++i) out << block;
  }
  ::chown(file.c_str(), user_, user_);
  start_as_user("0");
  std::string reads;
  for (int block = 1800; block >= 0; block -= 400) {
    reads += "dd if=" + file + " of=/dev/null bs=4k count=1 skip=" + std::to_string(block) +
             " iflag=direct; ";
  }
  ProgramRun timed = sh("{ " + reads + "} 2>&1", user_);
  ASSERT_EQ(timed.code, 0) << timed.out;
  const std::vector<double> seconds = dd_seconds(timed.out);
  ASSERT_EQ(seconds.size(), 5u) << timed.out;
  const double floor_s = static_cast<double>(builtin_profiles()[0].access_time_ns) / 3 * 1e-9;
  for (double s : seconds) EXPECT_GE(s, floor_s * 0.999) << timed.out;
}

TEST_F(DmcStartAsUser, AnInaccessibleFuseDeviceIsOneLineSayingWhatToDo) {
  ASSERT_EQ(::chmod("/dev/fuse", 0600), 0);
  world_.freeze();
  ProgramRun r = dmc({"start", dir_, "0"}, user_);
  ::chmod("/dev/fuse", 0666);  // fuse_ puts back the machine's mode at the end
  expect_rejected("dmc", {"start", "dir", "0"}, 1, r);
  EXPECT_EQ(r.err, "dmc: cannot condition " + dir_ +
                       ": without root, /dev/fuse is not accessible to this user (mode 0600): "
                       "give it mode 0666, as most distributions do (chmod 0666 /dev/fuse, or a "
                       "udev rule: KERNEL==\"fuse\", MODE=\"0666\")\n");
  EXPECT_EQ(mounts_on(dir_), std::vector<std::string>{});
}

}  // namespace
}  // namespace diskcond::tools
