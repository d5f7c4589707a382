// dmc's commands that change things: start, stop, select, configure, boot (against the fake).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/units.h"
#include "dmc/cli/cli_test_fixture.h"

namespace diskcond::dmc {
namespace {

using DmcCliChange = CliTest;

const Profile& builtin(size_t i) {
  return builtin_profiles()[i];
}

TEST_F(DmcCliChange, StartWithAProfileMountsAndStoresIt) {
  EXPECT_EQ(run({"start", mount_, "Faulty 5400 HDD"}), 0) << err();
  EXPECT_EQ(err(), "");
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{"start " + mount_});
  EXPECT_EQ(fake_.mounts[mount_].settings.profile, builtin(0));
  EXPECT_EQ(fake_.mounts[mount_].settings.cache, mount::CacheMode::kWriteBack);
  auto stored = *store().load(mount_);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->settings.profile, builtin(0));
  EXPECT_FALSE(stored->boot);
}

TEST_F(DmcCliChange, StartWriteThroughSelectsThePageCacheMode) {
  EXPECT_EQ(run({"start", mount_, "0", "-writethrough"}), 0) << err();
  EXPECT_EQ(fake_.mounts[mount_].settings.cache, mount::CacheMode::kPageCache);
  EXPECT_EQ((*store().load(mount_))->settings.cache, mount::CacheMode::kPageCache);
}

TEST_F(DmcCliChange, StartNoCacheSelectsTheNoCacheMode) {
  EXPECT_EQ(run({"start", mount_, "7", "-nocache"}), 0) << err();
  EXPECT_EQ(fake_.mounts[mount_].settings.cache, mount::CacheMode::kNoCache);
  EXPECT_EQ((*store().load(mount_))->settings.cache, mount::CacheMode::kNoCache);
}

TEST_F(DmcCliChange, ConfigureThenStartUsesTheStoredSettings) {
  EXPECT_EQ(run({"configure", mount_, "SSD", "100", "250", "125"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});  // not running: only stored
  auto stored = *store().load(mount_);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->settings.profile.name, "Custom");

  EXPECT_EQ(run({"status", mount_}), 0);
  EXPECT_EQ(
      out().rfind(
          "Disk Mount Conditioner: OFF\nProfile: Custom\n Type: SSD\n Access time: 100 us\n", 0),
      0u)
      << out();

  EXPECT_EQ(run({"start", mount_}), 0) << err();
  const Profile& p = fake_.mounts[mount_].settings.profile;
  EXPECT_EQ(p.name, "Custom");
  EXPECT_EQ(p.access_time_ns, 100 * kNsPerUs);
  EXPECT_EQ(p.read_bytes_per_sec, 250 * kMiB);
  EXPECT_EQ(p.write_bytes_per_sec, 125 * kMiB);
  EXPECT_EQ(p.queue_depth, 32u);
}

TEST_F(DmcCliChange, ZeroConfigurationMountsWithNoConditioningAtAll) {
  EXPECT_EQ(run({"configure", mount_, "SSD", "0", "0", "0"}), 0) << err();
  EXPECT_EQ(run({"start", mount_}), 0) << err();
  const Profile& p = fake_.mounts[mount_].settings.profile;
  EXPECT_EQ(p.access_time_ns, 0);
  EXPECT_EQ(p.read_bytes_per_sec, 0u);
  EXPECT_EQ(p.write_bytes_per_sec, 0u);
  EXPECT_EQ(run({"status", mount_}), 0);
  EXPECT_NE(
      out().find(" Read throughput: 0 MB/s (unlimited)\n Write throughput: 0 MB/s (unlimited)\n"),
      std::string::npos)
      << out();
}

// Issue 13, item 3: `cd D && dmc start . 0` left the shell (and what it ran) on the directory
// underneath: start refuses, naming them, unless -force.
TEST_F(DmcCliChange, StartRefusesWhileProcessesAreInsideUnlessForced) {
  processes_ = {{812, "bash", {"cwd"}}, {977, "rawio", {"fd 3", "map"}}};
  EXPECT_EQ(run({"start", mount_, "0"}), 4);
  EXPECT_EQ(out(), "");
  EXPECT_EQ(
      err(),
      "dmc: 2 processes are inside " + mount_ +
          " and would not be conditioned (they keep the directory underneath): pid 812 (bash: "
          "cwd), "
          "pid 977 (rawio: fd 3, map); leave it (cd elsewhere, close its files) or add -force\n");
  EXPECT_EQ(process_queries_, std::vector<std::string>{mount_ + " mounted=false daemon=0"});
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
  EXPECT_TRUE(store().list().mounts.empty());

  EXPECT_EQ(run({"start", mount_, "0", "-force"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{"start " + mount_});
  EXPECT_EQ(err(), "dmc: warning: 2 processes stay inside " + mount_ +
                       " and not conditioned: pid 812 (bash: cwd), pid 977 (rawio: fd 3, map)\n");
}

TEST_F(DmcCliChange, StartListsAFewProcessesAndCountsTheRest) {
  for (pid_t pid = 100; pid < 107; ++pid) processes_.push_back({pid, "sh", {"cwd"}});
  EXPECT_EQ(run({"start", mount_, "0"}), 4);
  EXPECT_EQ(line_count(err()), 1u);
  EXPECT_NE(err().find("7 processes are inside"), std::string::npos) << err();
  EXPECT_NE(err().find("pid 103 (sh: cwd) and 3 more;"), std::string::npos) << err();
}

TEST_F(DmcCliChange, StartWithNothingStoredAsksForAProfile) {
  EXPECT_EQ(run({"start", mount_}), 4);
  EXPECT_EQ(line_count(err()), 1u);
  EXPECT_NE(err().find("name a profile"), std::string::npos) << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
  EXPECT_TRUE(store().list().mounts.empty());  // no record was written
}

TEST_F(DmcCliChange, StartOnAConditionedMountRefuses) {
  fake_.add_running(mount_, {builtin(1), mount::CacheMode::kPageCache});
  EXPECT_EQ(run({"start", mount_, "0"}), 4);
  EXPECT_EQ(err(), "dmc: " + mount_ +
                       " is already conditioned (profile '5400 HDD'); change it with 'dmc select' "
                       "or 'dmc configure', or run 'dmc stop " +
                       mount_ + "' first\n");
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
}

TEST_F(DmcCliChange, ChangingAStaleMountPointsAtStop) {
  fake_.add_running(mount_, {builtin(1), mount::CacheMode::kPageCache}).daemon_alive = false;
  for (std::vector<std::string> args : {std::vector<std::string>{"start", mount_, "0"},
                                        {"select", mount_, "2"},
                                        {"configure", mount_, "HDD", "1", "1", "1"}}) {
    EXPECT_EQ(run(args), 5) << args[0];
    EXPECT_NE(err().find("'sudo dmc stop " + mount_ + "'"), std::string::npos) << err();
  }
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
}

TEST_F(DmcCliChange, FailedStartLeavesTheStoreAlone) {
  ASSERT_EQ(run({"configure", mount_, "HDD", "1", "1", "1"}), 0);
  auto before = store_files();
  fake_.fail_start = "fuse: device not found";
  EXPECT_EQ(run({"start", mount_, "3", "-boot"}), 1);
  EXPECT_EQ(err(), "dmc: cannot condition " + mount_ + ": fuse: device not found\n");
  EXPECT_EQ(store_files(), before);
}

TEST_F(DmcCliChange, SelectOnARunningMountUpdatesItLiveAndStoresIt) {
  fake_.add_running(mount_, {builtin(0), mount::CacheMode::kNoCache});
  EXPECT_EQ(run({"select", mount_, "slow ssd"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{"update " + mount_});
  EXPECT_EQ(fake_.mounts[mount_].settings.profile, builtin(3));
  EXPECT_EQ(fake_.mounts[mount_].settings.cache, mount::CacheMode::kNoCache);  // unchanged
  auto stored = *store().load(mount_);
  EXPECT_EQ(stored->settings.profile, builtin(3));
  EXPECT_EQ(stored->settings.cache, mount::CacheMode::kNoCache);
}

TEST_F(DmcCliChange, ConfigureOnARunningMountUpdatesItLiveAndStoresIt) {
  fake_.add_running(mount_, {builtin(0), mount::CacheMode::kPageCache});
  EXPECT_EQ(run({"configure", mount_, "HDD", "8ms", "1.5GB/s", "40", "4", "1m", "2m", "8", "9"}), 0)
      << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{"update " + mount_});
  const Profile& p = fake_.mounts[mount_].settings.profile;
  EXPECT_EQ(p.name, "Custom");
  EXPECT_EQ(p.type, DiskType::kHDD);
  EXPECT_EQ(p.access_time_ns, 8 * kNsPerMs);
  EXPECT_EQ(p.read_bytes_per_sec, 3 * kGiB / 2);
  EXPECT_EQ(p.write_bytes_per_sec, 40 * kMiB);
  EXPECT_EQ(p.queue_depth, 4u);
  EXPECT_EQ(p.max_read_bytes, kMiB);
  EXPECT_EQ(p.max_write_bytes, 2 * kMiB);
  EXPECT_EQ(p.max_read_segments, 8u);
  EXPECT_EQ(p.max_write_segments, 9u);
  EXPECT_EQ((*store().load(mount_))->settings.profile, p);
  EXPECT_EQ(run({"status", mount_}), 0);
  EXPECT_EQ(
      out().rfind(
          "Disk Mount Conditioner: ON\nProfile: Custom\n Type: HDD\n Access time: 8000 us\n", 0),
      0u)
      << out();
}

TEST_F(DmcCliChange, SelectWhileOffIsAppliedByTheNextStart) {
  EXPECT_EQ(run({"select", mount_, "5"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
  EXPECT_EQ(run({"start", mount_}), 0) << err();
  EXPECT_EQ(fake_.mounts[mount_].settings.profile, builtin(5));
}

TEST_F(DmcCliChange, FailedUpdateLeavesTheStoreAlone) {
  ASSERT_EQ(run({"start", mount_, "0"}), 0);
  auto before = store_files();
  fake_.fail_update = "daemon busy";
  EXPECT_EQ(run({"select", mount_, "1"}), 1);
  EXPECT_EQ(err(), "dmc: cannot change " + mount_ + ": daemon busy\n");
  EXPECT_EQ(store_files(), before);
}

TEST_F(DmcCliChange, BootFlagPersistsAndStopDropsItButKeepsSettings) {
  EXPECT_EQ(run({"start", mount_, "2", "-boot"}), 0) << err();
  EXPECT_TRUE((*store().load(mount_))->boot);
  EXPECT_EQ(run({"status", mount_, "-json"}), 0);
  EXPECT_NE(out().find("\"boot\": true"), std::string::npos) << out();
  EXPECT_EQ(run({"stop", mount_}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(),
            (std::vector<std::string>{"start " + mount_, "stop " + mount_}));
  auto stored = *store().load(mount_);
  EXPECT_FALSE(stored->boot);
  EXPECT_EQ(stored->settings.profile, builtin(2));
}

// Issue 13, item 5: -boot claimed persistence with no unit installed and PID 1 not systemd.
TEST_F(DmcCliChange, BootSaysPlainlyWhenNothingWillReapplyIt) {
  boot_problem_ = "PID 1 is sh, not systemd";
  EXPECT_EQ(run({"start", mount_, "2", "-boot"}), 0) << err();
  EXPECT_EQ(err(),
            "dmc: warning: '-boot' is stored, but nothing will re-apply it at boot: PID 1 is sh, "
            "not systemd\n");
  EXPECT_TRUE((*store().load(mount_))->boot);
  EXPECT_EQ(run({"status", mount_}), 0);
  EXPECT_NE(out().find("\nBoot: '-boot' is stored, but nothing will re-apply it at boot: PID 1 is "
                       "sh, not systemd\n"),
            std::string::npos)
      << out();
  EXPECT_EQ(out().find("re-applied at boot by"), std::string::npos) << out();
  EXPECT_EQ(run({"status", mount_, "-json"}), 0);
  auto j = nlohmann::ordered_json::parse(out());
  EXPECT_EQ(j["boot"], true);
  EXPECT_EQ(j["boot_reapplied"], false);
  EXPECT_EQ(j["boot_problem"], "PID 1 is sh, not systemd");

  boot_problem_.clear();  // the unit installed and enabled
  EXPECT_EQ(run({"status", mount_}), 0);
  EXPECT_NE(out().find("\nBoot: re-applied at boot by dmc-boot.service\n"), std::string::npos)
      << out();
  EXPECT_EQ(run({"status", mount_, "-json"}), 0);
  j = nlohmann::ordered_json::parse(out());
  EXPECT_EQ(j["boot_reapplied"], true);
  EXPECT_EQ(j["boot_problem"], nullptr);

  // Without -boot nothing is said about it.
  boot_problem_ = "dmc-boot.service is not installed";
  EXPECT_EQ(run({"start", other_mount_, "2"}), 0) << err();
  EXPECT_EQ(err(), "");
  EXPECT_EQ(run({"status", other_mount_, "-json"}), 0);
  EXPECT_EQ(nlohmann::ordered_json::parse(out())["boot_problem"], nullptr);
}

TEST_F(DmcCliChange, StopWhenNotConditioned) {
  EXPECT_EQ(run({"stop", mount_}), 4);
  EXPECT_EQ(err(), "dmc: " + mount_ + " is not conditioned\n");
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
}

TEST_F(DmcCliChange, SyncAsksTheMountHoldingThePathAndSaysNothing) {
  fake_.add_running(mount_, {builtin(0), mount::CacheMode::kWriteBack});
  EXPECT_EQ(run({"sync", mount_}), 0) << err();
  EXPECT_EQ(out(), "");
  EXPECT_EQ(fake_.changing_calls(), (std::vector<std::string>{"sync " + mount_}));
}

TEST_F(DmcCliChange, SyncWhenNotConditionedFailsWithWrongState) {
  EXPECT_EQ(run({"sync", mount_}), 4);
  EXPECT_EQ(err(), "dmc: " + mount_ + " is not conditioned\n");
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
}

TEST_F(DmcCliChange, StopOfANotRunningBootMountDropsThePersistence) {
  ASSERT_EQ(run({"start", mount_, "2", "-boot"}), 0);
  fake_.mounts.clear();  // as after a reboot before dmc-boot.service ran
  EXPECT_EQ(run({"stop", mount_}), 0) << err();
  EXPECT_FALSE((*store().load(mount_))->boot);
  EXPECT_NE(out().find("no longer be at boot"), std::string::npos) << out();
}

TEST_F(DmcCliChange, StopForceAndTheHintWhenBusy) {
  fake_.add_running(mount_, {builtin(0), mount::CacheMode::kPageCache});
  fake_.fail_stop = "files are open under it";
  EXPECT_EQ(run({"stop", mount_}), 1);
  // Issue 13, item 8: the hint once (the daemon's message used to carry one too).
  EXPECT_EQ(err(), "dmc: cannot stop " + mount_ + ": files are open under it; 'dmc stop " + mount_ +
                       " -force' detaches it lazily\n");
  EXPECT_EQ(run({"stop", mount_, "-force"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls().back(), "stop -force " + mount_);
}

TEST_F(DmcCliChange, StopClearsAStaleMount) {
  fake_.add_running(mount_, {builtin(0), mount::CacheMode::kPageCache}).daemon_alive = false;
  EXPECT_EQ(run({"stop", mount_}), 0) << err();
  EXPECT_TRUE(fake_.mounts.empty());
}

TEST_F(DmcCliChange, BootStartsEveryPersistedMountWithItsSettings) {
  ASSERT_EQ(run({"start", mount_, "0", "-boot", "-nocache"}), 0);
  ASSERT_EQ(run({"start", other_mount_, "7"}), 0);  // not persisted
  fake_.mounts.clear();                             // reboot
  fake_.calls.clear();
  EXPECT_EQ(run({"boot"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{"start " + mount_});
  EXPECT_EQ(fake_.mounts[mount_].settings.profile, builtin(0));
  EXPECT_EQ(fake_.mounts[mount_].settings.cache, mount::CacheMode::kNoCache);
  EXPECT_EQ(out(), mount_ + ": conditioned (Faulty 5400 HDD)\n");
  EXPECT_EQ(err(), "");
}

TEST_F(DmcCliChange, BootSkipsRunningMountsAndClearsStaleOnes) {
  ASSERT_EQ(run({"start", mount_, "0", "-boot"}), 0);
  ASSERT_EQ(run({"start", other_mount_, "3", "-boot"}), 0);
  fake_.mounts[other_mount_].daemon_alive = false;
  fake_.calls.clear();
  EXPECT_EQ(run({"boot"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(),
            (std::vector<std::string>{"stop -force " + other_mount_, "start " + other_mount_}));
  EXPECT_NE(out().find(mount_ + ": already conditioned"), std::string::npos) << out();
}

TEST_F(DmcCliChange, BootReportsEachFailureAndGoesOn) {
  ASSERT_EQ(run({"start", mount_, "0", "-boot"}), 0);
  ASSERT_EQ(run({"start", other_mount_, "3", "-boot"}), 0);
  fake_.mounts.clear();
  fake_.fail_start = "fuse: device not found";  // the first one (in file name order) fails
  std::ofstream(state_dir_ + "/zz.json") << "garbage";
  EXPECT_EQ(run({"boot"}), 1);
  EXPECT_EQ(fake_.mounts.count(other_mount_), 1u);  // the good one still started
  EXPECT_EQ(err(), "dmc: boot: " + state_dir_ +
                       "/zz.json: not valid JSON\n"
                       "dmc: boot: " +
                       mount_ +
                       ": fuse: device not found\n"
                       "dmc: boot: 2 of 3 persisted mounts failed\n");
}

// Issue 13, item 6: a '-boot' record whose directory was deleted failed `dmc boot` forever, and
// `dmc stop` could not remove it ("no such directory").
TEST_F(DmcCliChange, BootSkipsADeletedDirectoryAndSucceedsForTheOthers) {
  ASSERT_EQ(run({"start", mount_, "0", "-boot"}), 0);
  ASSERT_EQ(run({"start", other_mount_, "3", "-boot"}), 0);
  fake_.mounts.clear();
  std::filesystem::remove(mount_);
  EXPECT_EQ(run({"boot"}), 0) << err();
  EXPECT_EQ(fake_.mounts.count(other_mount_), 1u);
  EXPECT_EQ(fake_.mounts.count(mount_), 0u);
  EXPECT_EQ(out(), other_mount_ + ": conditioned (Slow SSD)\n");
  EXPECT_EQ(err(), "dmc: warning: boot: " + mount_ +
                       ": skipped: the directory no longer exists ('sudo dmc stop " + mount_ +
                       "' forgets it)\n");
}

TEST_F(DmcCliChange, StopForgetsTheRecordOfADeletedDirectory) {
  ASSERT_EQ(run({"start", mount_, "0", "-boot"}), 0);
  fake_.mounts.clear();  // rebooted; then the directory was deleted
  std::filesystem::remove(mount_);
  fake_.calls.clear();
  EXPECT_EQ(run({"stop", mount_ + "/"}), 0) << err();
  EXPECT_EQ(
      out(),
      mount_ +
          " no longer exists; its stored settings are forgotten (it will no longer be conditioned "
          "at boot)\n");
  EXPECT_EQ(err(), "");
  EXPECT_FALSE(store().load(mount_)->has_value());
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
  EXPECT_EQ(run({"boot"}), 0) << err();
  EXPECT_EQ(err(), "");
  // Once forgotten, or never stored: no such directory, as before.
  EXPECT_EQ(run({"stop", mount_}), 2);
  EXPECT_EQ(err(), "dmc: no such directory '" + mount_ + "'\n");
}

// Issue 13, item 4: select, configure and stop of a path inside a conditioned directory act on
// that directory (not on settings stored for the subdirectory) and say which one.
TEST_F(DmcCliChange, CommandsOnAPathInsideActOnTheConditionedDirectory) {
  std::filesystem::create_directories(mount_ + "/sub");
  const std::string sub = mount_ + "/sub";
  const std::string line = sub + " is inside the conditioned directory " + mount_ + "\n";
  ASSERT_EQ(run({"start", mount_, "0", "-boot"}), 0);
  fake_.calls.clear();
  EXPECT_EQ(run({"select", sub, "3"}), 0) << err();
  EXPECT_EQ(out(), line);
  EXPECT_EQ(fake_.mounts[mount_].settings.profile, builtin(3));
  EXPECT_EQ((*store().load(mount_))->settings.profile, builtin(3));
  EXPECT_TRUE((*store().load(mount_))->boot);  // kept
  EXPECT_EQ(run({"configure", sub, "HDD", "8ms", "40", "40"}), 0) << err();
  EXPECT_EQ(out(), line);
  EXPECT_EQ(fake_.mounts[mount_].settings.profile.name, "Custom");
  EXPECT_FALSE(store().load(sub)->has_value());  // nothing stored for the subdirectory
  EXPECT_EQ(fake_.changing_calls(),
            (std::vector<std::string>{"update " + mount_, "update " + mount_}));
  EXPECT_EQ(run({"start", sub, "1"}), 4);
  EXPECT_EQ(err(), "dmc: " + sub + " is inside the conditioned directory " + mount_ +
                       " (profile 'Custom'); change "
                       "it with 'dmc select' or 'dmc configure', or run 'dmc stop " +
                       mount_ + "' first\n");
  EXPECT_EQ(run({"stop", sub}), 0) << err();
  EXPECT_EQ(out(), line);
  EXPECT_EQ(fake_.changing_calls().back(), "stop " + mount_);
  EXPECT_FALSE((*store().load(mount_))->boot);
  EXPECT_FALSE(store().load(sub)->has_value());
}

TEST_F(DmcCliChange, CommandsOnAPathInsideAStaleMountPointAtStop) {
  std::filesystem::create_directories(mount_ + "/sub");
  fake_.add_running(mount_, {builtin(1), mount::CacheMode::kPageCache}).daemon_alive = false;
  for (std::vector<std::string> args : {std::vector<std::string>{"start", mount_ + "/sub", "0"},
                                        {"select", mount_ + "/sub", "2"}}) {
    EXPECT_EQ(run(args), 5) << args[0];
    EXPECT_NE(err().find("'sudo dmc stop " + mount_ + "'"), std::string::npos) << err();
  }
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
}

// Issue 13, items 1, 2 and 7: "/", pseudo file systems and dmc's own directories are refused
// before anything changes (the fake refuses "/" and what it is told; the real checks are
// Conditionable.* in src/dmc/mount/conditionable_test.cc).
TEST_F(DmcCliChange, StartRefusesWhatCannotBeConditioned) {
  fake_.unconditionable[mount_] =
      "refusing to condition " + mount_ + ": it is on proc, a pseudo file system";
  std::filesystem::create_directories(state_dir_);
  auto before = store_files();
  for (const std::string& dir : {std::string("/"), mount_, root_ + "/state", state_dir_}) {
    EXPECT_EQ(run({"start", dir, "0"}), 2) << dir;
    EXPECT_EQ(line_count(err()), 1u) << err();
    EXPECT_EQ(err().rfind("dmc: refusing to condition " + dir, 0), 0u) << err();
    EXPECT_EQ(out(), "");
  }
  EXPECT_EQ(fake_.last_own_dirs, std::vector<std::string>{state_dir_});  // the settings store
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
  EXPECT_EQ(store_files(), before);
}

TEST_F(DmcCliChange, BootRefusesWhatCannotBeConditioned) {
  ASSERT_EQ(run({"start", mount_, "0", "-boot"}), 0);
  fake_.mounts.clear();
  fake_.calls.clear();
  fake_.unconditionable[mount_] = "refusing to condition " + mount_ + ": it is on sysfs";
  EXPECT_EQ(run({"boot"}), 1);
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
  EXPECT_EQ(err(), "dmc: boot: " + mount_ + ": refusing to condition " + mount_ +
                       ": it is on sysfs\n"
                       "dmc: boot: 1 of 1 persisted mounts failed\n");
}

TEST_F(DmcCliChange, BootWithNothingPersistedDoesNothing) {
  EXPECT_EQ(run({"boot"}), 0);
  EXPECT_EQ(fake_.calls, std::vector<std::string>{});
}

}  // namespace
}  // namespace diskcond::dmc
