// dmc start -crashable, dmc crash and status (against the fake): options, what is printed, exit
// codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dmc/cli/cli_test_fixture.h"

namespace diskcond::dmc {
namespace {

using DmcCliCrash = CliTest;

TEST_F(DmcCliCrash, StartCrashableAsksForTheUndoLog) {
  EXPECT_EQ(run({"start", mount_, "0", "-crashable"}), 0) << err();
  EXPECT_TRUE(fake_.mounts[mount_].settings.crashable);
  EXPECT_EQ(run({"start", other_mount_, "0"}), 0) << err();
  EXPECT_FALSE(fake_.mounts[other_mount_].settings.crashable);
}

TEST_F(DmcCliCrash, CrashPrintsWhatWasLostAndTheSeed) {
  ASSERT_EQ(run({"start", mount_, "0", "-crashable"}), 0) << err();
  fake_.crash_report.files = 1;
  fake_.crash_report.lost_bytes = 4096;
  fake_.crash_report.survived_bytes = 1024;
  fake_.crash_report.removed = 1;
  fake_.crash_report.paths = {mount_ + "/a", mount_ + "/b (removed)"};
  EXPECT_EQ(run({"crash", mount_, "-tear", "sector", "-seed", "42"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls().back(), "crash " + mount_ + " 42 sector");
  EXPECT_EQ(out(), "crashed " + mount_ +
                       " (seed 42, tear sector): 4096 bytes not yet durable lost in 1 file, 1024 "
                       "bytes survived torn, 1 created entry removed; " +
                       mount_ + " is no longer conditioned\n  " + mount_ + "/a\n  " + mount_ +
                       "/b (removed)\n");
  EXPECT_EQ(err(), "");
}

TEST_F(DmcCliCrash, CrashJson) {
  ASSERT_EQ(run({"start", mount_, "0", "-crashable"}), 0) << err();
  EXPECT_EQ(run({"crash", mount_, "-seed", "3", "-json"}), 0) << err();
  EXPECT_EQ(out(),
            "{\"mount\":\"" + mount_ +
                "\",\"seed\":3,\"tear\":\"none\",\"files\":0,\"lost_bytes\":0,"
                "\"survived_bytes\":0,\"removed\":0,\"restored\":0,\"paths\":[],\"errors\":[]}\n");
}

TEST_F(DmcCliCrash, BadWordsChangeNothing) {
  ASSERT_EQ(run({"start", mount_, "0", "-crashable"}), 0) << err();
  const size_t calls = fake_.changing_calls().size();
  EXPECT_EQ(run({"crash", mount_, "-tear", "block"}), 2);
  EXPECT_EQ(err(), "dmc: tear must be none, sector or page, not 'block'\n");
  EXPECT_EQ(run({"crash", mount_, "-seed", "-1"}), 2);
  EXPECT_EQ(err(), "dmc: -seed must be a number from 0 to 2^64-1, not '-1'\n");
  EXPECT_EQ(fake_.changing_calls().size(), calls);
  EXPECT_TRUE(fake_.mounts.count(mount_));
}

TEST_F(DmcCliCrash, NeedsRootAndAConditionedDirectory) {
  EXPECT_EQ(run({"crash", mount_}), 4);
  EXPECT_EQ(err(), "dmc: " + mount_ + " is not conditioned\n");
  ASSERT_EQ(run({"start", mount_, "0", "-crashable"}), 0) << err();
  is_root_ = false;
  EXPECT_EQ(run({"crash", mount_}), 3);
  EXPECT_EQ(err(),
            "dmc: 'dmc crash' needs root, or a mount you made yourself ('dmc run' or 'dmc start' "
            "without root); run it with sudo\n");
  EXPECT_TRUE(fake_.mounts.count(mount_));
}

// An ordinary user crashes a mount they made (`dmc run -crashable` inside its command).
TEST_F(DmcCliCrash, TheUserWhoMadeTheMountMayCrashIt) {
  is_root_ = false;
  fake_.directory_owner = user_uid_;
  mount::MountSettings settings{builtin_profiles()[0], mount::CacheMode::kWriteBack};
  settings.crashable = true;
  fake_.add_running(mount_, settings);
  EXPECT_EQ(run({"crash", mount_, "-seed", "5"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls().back(), "crash " + mount_ + " 5 none");
}

// status says whether the mount keeps the undo log, as text and JSON; OFF says nothing of it.
TEST_F(DmcCliCrash, StatusSaysWhetherTheMountIsCrashable) {
  ASSERT_EQ(run({"start", mount_, "0", "-crashable"}), 0) << err();
  ASSERT_EQ(run({"start", other_mount_, "0"}), 0) << err();
  EXPECT_EQ(run({"status", mount_}), 0) << err();
  EXPECT_NE(out().find("\nCrashable: yes, an undo log keeps what 'dmc crash " + mount_ +
                       "' takes back\n"),
            std::string::npos)
      << out();
  EXPECT_EQ(run({"status", other_mount_}), 0) << err();
  EXPECT_NE(out().find("\nCrashable: no (started without -crashable)\n"), std::string::npos)
      << out();
  EXPECT_EQ(run({"status", mount_, "-json"}), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(out())["crashable"], true);
  EXPECT_EQ(run({"status", other_mount_, "-json"}), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(out())["crashable"], false);
  ASSERT_EQ(run({"stop", mount_}), 0) << err();
  EXPECT_EQ(run({"status", mount_}), 0) << err();
  EXPECT_EQ(out().find("Crashable:"), std::string::npos) << out();
  EXPECT_EQ(run({"status", mount_, "-json"}), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(out())["crashable"], false);
}

}  // namespace
}  // namespace diskcond::dmc
