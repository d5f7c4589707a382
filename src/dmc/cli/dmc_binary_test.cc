// Runs the built dmc binary (DMC_BINARY): help, list, show and bad input as a user sees them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/profile.h"
#include "dmc/cli/test_temp_dir.h"
#include "dmc/cli/text_format.h"
#include "tools/bad_input_harness.h"

namespace diskcond::dmc {
namespace {

using DmcRun = testing::ProgramRun;

class DmcBinary : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(root_ + "/profiles"); }

  // Runs DMC_BINARY with `args`, its state and profile directories inside the test's directory.
  DmcRun dmc(std::vector<std::string> args) {
    return testing::run_program(DMC_BINARY, args,
                                {"DISKCOND_STATE_DIR=" + root_ + "/state",
                                 "DISKCOND_PROFILE_DIR=" + root_ + "/profiles", "PATH=/usr/bin:/bin", "LC_ALL=C"},
                                root_);
  }

  TestTempDir temp_{"dmc_binary_test"};
  std::string root_ = temp_.path();
};

TEST_F(DmcBinary, HelpHasMacOSUsageShape) {
  for (const char* h : {"-h", "help", "--help"}) {
    DmcRun r = dmc({h});
    EXPECT_EQ(r.code, 0) << h;
    EXPECT_EQ(r.out.rfind("usage: dmc <commands...>\n"
                          "# commands:\n"
                          "  start <mount> [profile_name|profile_index [-boot]] [-nocache]\n"
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
  EXPECT_EQ(show.out,
            "Profile: Faulty 5400 HDD\n Type: HDD\n Access time: 52222 us\n Read throughput: 50 MB/s\n"
            " Write throughput: 50 MB/s\n I/O Queue Depth: 16\n Max Read Bytes: 16777216\n"
            " Max Write Bytes: 16777216\n Max Read Segments: 128\n Max Write Segments: 128\n");
  DmcRun json = dmc({"show", "PCIe 3 SSD", "-json"});
  EXPECT_EQ(json.code, 0);
  EXPECT_NE(json.out.find("\"read_throughput_bytes_per_sec\": 3221225472"), std::string::npos) << json.out;
}

TEST_F(DmcBinary, UserProfilesAndWarnings) {
  std::ofstream(root_ + "/profiles/disk.toml") << "name = \"Lab Disk\"\ntype = \"SSD\"\naccess_time = 40\n"
                                                  "read_throughput = 400\nwrite_throughput = 300\n";
  std::ofstream(root_ + "/profiles/oops.toml") << "name = \"Oops\"\n";
  DmcRun list = dmc({"list"});
  EXPECT_EQ(list.code, 0);
  EXPECT_NE(list.out.find("  8: Lab Disk\n"), std::string::npos) << list.out;
  EXPECT_EQ(list.err.rfind("dmc: warning: " + root_ + "/profiles/oops.toml", 0), 0u) << list.err;
}

TEST_F(DmcBinary, BadInputIsOneLineOnStderr) {
  const std::vector<std::vector<std::string>> bad = {
      {}, {"frobnicate"}, {"show", "42"}, {"list", "-bogus"},
      {"start", root_ + "/missing", "0"}, {"configure", root_, "SSD", "1", "2"},
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

TEST_F(DmcBinary, Version) {
  DmcRun r = dmc({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("dmc (diskcond) ") + DISKCOND_VERSION + "\n");
}

}  // namespace
}  // namespace diskcond::dmc
