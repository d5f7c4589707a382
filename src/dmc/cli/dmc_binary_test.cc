// Runs the built dmc binary (DMC_BINARY): help, list, show and bad input as a user sees them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/profile.h"
#include "dmc/cli/text_format.h"
#include "test_support/scratch_dir.h"

extern char** environ;

namespace diskcond::dmc {
namespace {

struct DmcRun {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class DmcBinary : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(root_ + "/profiles"); }

  // Runs DMC_BINARY with `args`, its state and profile directories inside the test's directory.
  DmcRun dmc(std::vector<std::string> args) {
    std::vector<std::string> env_text = {"DISKCOND_STATE_DIR=" + root_ + "/state",
                                         "DISKCOND_PROFILE_DIR=" + root_ + "/profiles",
                                         "PATH=/usr/bin:/bin", "LC_ALL=C"};
    std::vector<char*> env, argv;
    for (auto& e : env_text) env.push_back(e.data());
    env.push_back(nullptr);
    std::string binary = DMC_BINARY;
    argv.push_back(binary.data());
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string out_path = root_ + "/stdout", err_path = root_ + "/stderr";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid = 0;
    DmcRun r;
    int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return r;
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out_path);
    r.err = slurp(err_path);
    return r;
  }

  test_support::ScratchDir temp_{"dmc_binary_test"};
  std::string root_ = temp_.path();
};

TEST_F(DmcBinary, HelpHasMacOSUsageShape) {
  for (const char* h : {"-h", "help", "--help"}) {
    DmcRun r = dmc({h});
    EXPECT_EQ(r.code, 0) << h;
    EXPECT_EQ(
        r.out.rfind("usage: dmc <commands...>\n"
                    "# commands:\n"
                    "  start <mount> [profile_name|profile_index [-boot]] [-nocache] [-force] "
                    "[-faults <file>] [-crashable]\n"
                    "  stop <mount> [-force]\n"
                    "  status <mount> [-json]\n"
                    "  show profile_name|profile_index [-json]\n"
                    "  list [-json]\n"
                    "  predict [profile_name|profile_index] [-json]\n"
                    "  select <mount> (profile_name|profile_index)\n"
                    "  configure <mount> <type> <access_time> <read_throughput> <write_throughput> "
                    "[<ioqueue_depth> <maxreadcnt> <maxwritecnt> <segreadcnt> <segwritecnt>]\n"
                    "  boot\n"
                    "  verify <mount> [-json] [-quick]\n"
                    "  sync <mount>\n"
                    "  crash <mount> [-tear none|sector|page] [-seed N] [-json]\n"
                    "  run <dir> (profile_name|profile_index) [-writethrough|-nocache] "
                    "[-faults <file>] [-crashable] -- <command> [args...]\n"
                    "  fault add <mount> <rule words...>\n"
                    "  fault list <mount> [-json]\n"
                    "  fault remove <mount> <id>\n"
                    "  fault clear <mount>\n"
                    "  fault release <mount>\n"
                    "  fault log <mount> [-json]\n"
                    "  disk create <image> <size> [profile] [-start] [-existing] [-mkfs ext4] "
                    "[-mount <dir>] [-json]\n"
                    "  disk remove <image|device|dir> [-delete]\n"
                    "  disk list [-json]\n"
                    "  help | -h [command]\n",
                    0),
        0u)
        << r.out;
    EXPECT_EQ(r.err, "");
  }
  DmcRun start_help = dmc({"start", "--help"});
  EXPECT_EQ(start_help.code, 0);
  EXPECT_NE(start_help.out.find("-nocache"), std::string::npos);
}

TEST_F(DmcBinary, ListAndShowMatchTheSeedArticle) {
  DmcRun list = dmc({"list"});
  EXPECT_EQ(list.code, 0);
  EXPECT_EQ(list.out,
            "  0: Faulty 5400 HDD\n  1: 5400 HDD\n  2: 7200 HDD\n  3: Slow SSD\n  4: SATA II SSD\n"
            "  5: SATA III SSD\n  6: PCIe 2 SSD\n  7: PCIe 3 SSD\n");
  DmcRun show = dmc({"show", "0"});
  EXPECT_EQ(show.code, 0);
  EXPECT_EQ(
      show.out,
      "Profile: Faulty 5400 HDD\n Type: HDD\n Access time: 52222 us\n Read throughput: 50 MB/s\n"
      " Write throughput: 50 MB/s\n I/O Queue Depth: 16\n Max Read Bytes: 16777216\n"
      " Max Write Bytes: 16777216\n Max Read Segments: 128\n Max Write Segments: 128\n");
  DmcRun json = dmc({"show", "PCIe 3 SSD", "-json"});
  EXPECT_EQ(json.code, 0);
  EXPECT_NE(json.out.find("\"read_throughput_bytes_per_sec\": 3221225472"), std::string::npos)
      << json.out;
}

TEST_F(DmcBinary, UserProfilesAndWarnings) {
  std::ofstream(root_ + "/profiles/disk.toml")
      << "name = \"Lab Disk\"\ntype = \"SSD\"\naccess_time = 40\n"
         "read_throughput = 400\nwrite_throughput = 300\n";
  std::ofstream(root_ + "/profiles/oops.toml") << "name = \"Oops\"\n";
  DmcRun list = dmc({"list"});
  EXPECT_EQ(list.code, 0);
  EXPECT_NE(list.out.find("  8: Lab Disk\n"), std::string::npos) << list.out;
  EXPECT_EQ(list.err.rfind("dmc: warning: " + root_ + "/profiles/oops.toml", 0), 0u) << list.err;
}

TEST_F(DmcBinary, BadInputIsOneLineOnStderr) {
  const std::vector<std::vector<std::string>> bad = {{},
                                                     {"frobnicate"},
                                                     {"show", "42"},
                                                     {"list", "-bogus"},
                                                     {"start", root_ + "/missing", "0"},
                                                     {"configure", root_, "SSD", "1", "2"},
                                                     {"configure", root_, "SSD", "-1", "2", "3"}};
  for (const auto& args : bad) {
    DmcRun r = dmc(args);
    EXPECT_EQ(r.code, 2) << (args.empty() ? "" : args[0]) << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("dmc: ", 0), 0u) << r.err;
    EXPECT_EQ(r.out, "");
  }
  EXPECT_FALSE(std::filesystem::exists(root_ + "/state"));  // nothing was stored
}

// Issue 13, items 1, 2 and 7, with the real checks: "/" (which used to say ON and condition
// nothing), pseudo file systems, and dmc's own state and run directories and their parents.
TEST_F(DmcBinary, StartRefusesTheRootPseudoFilesystemsAndItsOwnDirectories) {
  if (::geteuid() != 0) GTEST_SKIP() << "start needs root";
  std::filesystem::create_directories(root_ + "/state/mounts");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/",
       "dmc: refusing to condition / (the whole system, dmc's own files included); name a "
       "directory below it\n"},
      {"/proc",
       "dmc: refusing to condition /proc: it is on proc, a pseudo file system with no disk behind "
       "it\n"},
      {"/sys",
       "dmc: refusing to condition /sys: it is on sysfs, a pseudo file system with no disk behind "
       "it\n"},
      {"/dev",
       "dmc: refusing to condition /dev: it is on devtmpfs, a pseudo file system with no disk "
       "behind it\n"},
      {root_ + "/state/mounts", "dmc: refusing to condition " + root_ +
                                    "/state/mounts: it holds dmc's own files (" + root_ +
                                    "/state/mounts)\n"},
      {root_ + "/state", "dmc: refusing to condition " + root_ +
                             "/state: it holds dmc's own files (" + root_ + "/state/mounts)\n"},
      {"/run", "dmc: refusing to condition /run: it holds dmc's own files (/run/diskcond)\n"},
  };
  for (const auto& [dir, message] : cases) {
    DmcRun r = dmc({"start", dir, "0"});
    EXPECT_EQ(r.code, 2) << dir;
    EXPECT_EQ(r.err, message);
    EXPECT_EQ(r.out, "");
  }
  EXPECT_FALSE(std::filesystem::exists(root_ + "/state/mounts/.lock"));  // nothing touched
  DmcRun status = dmc({"status", "/proc", "-json"});
  EXPECT_EQ(status.code, 0);
  EXPECT_NE(status.out.find("\"state\": \"off\""), std::string::npos) << status.out;
}

// Issue 13, item 8.
TEST_F(DmcBinary, HelpAboutHelp) {
  DmcRun r = dmc({"help", "--help"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: dmc <commands...>\n", 0), 0u) << r.out;
}

TEST_F(DmcBinary, Version) {
  DmcRun r = dmc({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("dmc (diskcond) ") + DISKCOND_VERSION + "\n");
}

}  // namespace
}  // namespace diskcond::dmc
