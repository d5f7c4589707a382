// dmc's read-only commands, help, and the promise that bad input changes nothing.
#include "dmc/cli/dmc_cli.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dmc/cli/cli_test_fixture.h"
#include "dmc/cli/command_table.h"
#include "dmc/cli/text_format.h"

namespace diskcond::dmc {
namespace {

using DmcCli = CliTest;

TEST_F(DmcCli, ListPrintsBuiltinsThenUserProfilesAndWarnsAboutBadFiles) {
  std::ofstream(profile_dir_ + "/a.toml")
      << "name = \"My Disk\"\ntype = \"HDD\"\naccess_time = \"9ms\"\n"
         "read_throughput = 80\nwrite_throughput = 70\n";
  std::ofstream(profile_dir_ + "/b.toml") << "name = \"Broken\"\ntype = \"tape\"\n";
  EXPECT_EQ(run({"list"}), 0);
  EXPECT_EQ(out(), format_profile_list(builtin_profiles()) + "  8: My Disk\n");
  EXPECT_EQ(line_count(err()), 1u) << err();
  EXPECT_EQ(err().rfind("dmc: warning: " + profile_dir_ + "/b.toml", 0), 0u) << err();

  EXPECT_EQ(run({"show", "my disk"}), 0);
  EXPECT_EQ(out().substr(0, 25), "Profile: My Disk\n Type: H");
  EXPECT_EQ(run({"show", "8", "-json"}), 0);
  auto j = nlohmann::ordered_json::parse(out());
  EXPECT_EQ(j["index"], 8);
  EXPECT_EQ(j["builtin"], false);
}

TEST_F(DmcCli, ListJson) {
  EXPECT_EQ(run({"list", "-json"}), 0);
  auto j = nlohmann::ordered_json::parse(out());
  EXPECT_EQ(j["profiles"].size(), 8u);
  EXPECT_EQ(j["profiles"][0]["name"], "Faulty 5400 HDD");
}

TEST_F(DmcCli, ShowByIndexOrNameInAnyCase) {
  EXPECT_EQ(run({"show", "0"}), 0);
  EXPECT_EQ(out(), format_profile(builtin_profiles()[0]));
  EXPECT_EQ(run({"show", "pcie 3 ssd"}), 0);
  EXPECT_EQ(out(), format_profile(builtin_profiles()[7]));
  EXPECT_EQ(err(), "");
}

TEST_F(DmcCli, StatusOfAnUnconditionedDirectoryIsOffWithZeros) {
  is_root_ = false;  // reading needs no root
  EXPECT_EQ(run({"status", mount_}), 0);
  EXPECT_EQ(out().rfind(
                "Disk Mount Conditioner: OFF\nProfile: None\n Type: SSD\n Access time: 0 us\n", 0),
            0u)
      << out();
  EXPECT_NE(out().find(" Read throughput: 0 MB/s (unlimited)\n"), std::string::npos);
  EXPECT_EQ(err(), "");
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
}

TEST_F(DmcCli, StatusOfARunningMountShowsLiveSettingsAndCounters) {
  mount::MountStatus& s =
      fake_.add_running(mount_, {builtin_profiles()[3], mount::CacheMode::kPageCache});
  s.counters.commands[0] = 7;
  is_root_ = false;
  EXPECT_EQ(run({"status", mount_ + "/"}), 0);  // a trailing slash names the same mount
  EXPECT_EQ(out().rfind("Disk Mount Conditioner: ON\nProfile: Slow SSD\n", 0), 0u) << out();
  EXPECT_NE(out().find(" Reads: 7 commands"), std::string::npos) << out();
  EXPECT_EQ(run({"status", mount_, "-json"}), 0);
  auto j = nlohmann::ordered_json::parse(out());
  EXPECT_EQ(j["state"], "on");
  EXPECT_EQ(j["mount"], mount_);
  EXPECT_EQ(j["profile"]["name"], "Slow SSD");
  EXPECT_EQ(j["counters"]["read_commands"], 7);
}

// Issue 13, item 3: processes that were inside before `dmc start` keep the directory underneath.
TEST_F(DmcCli, StatusWarnsAboutProcessesThatAreNotConditioned) {
  fake_.add_running(mount_, {builtin_profiles()[3], mount::CacheMode::kPageCache});
  processes_ = {{812, "bash", {"cwd"}}, {977, "rawio", {"fd 3", "map"}}};
  is_root_ = false;
  EXPECT_EQ(run({"status", mount_}), 0) << err();
  EXPECT_NE(
      out().find(
          "Daemon: pid 4242\nWarning: 2 processes still in the directory underneath (there before "
          "'dmc start'), not conditioned: pid 812 (bash: cwd), pid 977 (rawio: fd 3, map)\n"),
      std::string::npos)
      << out();
  EXPECT_EQ(process_queries_, std::vector<std::string>{mount_ + " mounted=true daemon=4242"});
  EXPECT_EQ(run({"status", mount_, "-json"}), 0);
  auto j = nlohmann::ordered_json::parse(out());
  ASSERT_EQ(j["unconditioned_processes"].size(), 2u);
  EXPECT_EQ(j["unconditioned_processes"][1]["pid"], 977);
  EXPECT_EQ(j["unconditioned_processes"][1]["command"], "rawio");
  EXPECT_EQ(j["unconditioned_processes"][1]["uses"], nlohmann::json::array({"fd 3", "map"}));

  processes_.clear();
  EXPECT_EQ(run({"status", mount_}), 0);
  EXPECT_EQ(out().find("Warning"), std::string::npos) << out();
  EXPECT_EQ(run({"status", mount_, "-json"}), 0);
  EXPECT_EQ(nlohmann::ordered_json::parse(out())["unconditioned_processes"],
            nlohmann::json::array());
}

TEST_F(DmcCli, StatusOfADeadDaemonSaysSoWithTheFix) {
  mount::MountStatus& s =
      fake_.add_running(mount_, {builtin_profiles()[0], mount::CacheMode::kPageCache});
  s.daemon_alive = false;
  EXPECT_EQ(run({"status", mount_}), 5);
  EXPECT_EQ(out().rfind("Disk Mount Conditioner: STALE\n", 0), 0u) << out();
  EXPECT_EQ(err(), "dmc: the daemon serving " + mount_ +
                       " is not running (stale mount); run 'sudo dmc stop " + mount_ +
                       "' to clear it\n");
}

// Issue 13, item 8: -json prints the state and exits 5, without a second report on stderr.
TEST_F(DmcCli, StatusJsonOfADeadDaemonIsTheJsonAndExitFive) {
  fake_.add_running(mount_, {builtin_profiles()[0], mount::CacheMode::kPageCache}).daemon_alive =
      false;
  EXPECT_EQ(run({"status", mount_, "-json"}), 5);
  auto j = nlohmann::ordered_json::parse(out());
  EXPECT_EQ(j["state"], "stale");
  EXPECT_EQ(err(), "");
}

// Issue 13, item 4: like macOS (which reports the volume holding a path), a path inside a
// conditioned directory reports that directory, and says which one.
TEST_F(DmcCli, StatusOfAPathInsideAConditionedDirectoryReportsThatDirectory) {
  std::filesystem::create_directories(mount_ + "/sub/deeper");
  fake_.add_running(mount_, {builtin_profiles()[3], mount::CacheMode::kPageCache});
  ASSERT_EQ(run({"select", mount_, "3"}), 0);  // something stored for the mount
  is_root_ = false;
  EXPECT_EQ(run({"status", mount_ + "/sub/deeper"}), 0) << err();
  EXPECT_EQ(out().rfind("Disk Mount Conditioner: ON\nProfile: Slow SSD\n", 0), 0u) << out();
  EXPECT_NE(out().find("Mount: " + mount_ + "\n" + mount_ +
                       "/sub/deeper is inside the conditioned directory " + mount_ + "\n"),
            std::string::npos)
      << out();
  EXPECT_EQ(run({"status", mount_ + "/sub", "-json"}), 0);
  auto j = nlohmann::ordered_json::parse(out());
  EXPECT_EQ(j["state"], "on");
  EXPECT_EQ(j["mount"], mount_);
  EXPECT_EQ(j["path"], mount_ + "/sub");
  EXPECT_EQ(j["profile"]["name"], "Slow SSD");
  // A directory beside it is not inside it.
  std::filesystem::create_directories(mount_ + "-twin");
  EXPECT_EQ(run({"status", mount_ + "-twin"}), 0);
  EXPECT_EQ(out().rfind("Disk Mount Conditioner: OFF\n", 0), 0u) << out();
}

TEST_F(DmcCli, StatusWhenTheMachineryFailsIsOneLine) {
  fake_.fail_status = "control socket refused";
  EXPECT_EQ(run({"status", mount_}), 1);
  EXPECT_EQ(err(), "dmc: cannot query " + mount_ + ": control socket refused\n");
}

TEST_F(DmcCli, HelpInEveryFormMatchesMacOSShape) {
  for (std::vector<std::string> args : {std::vector<std::string>{"help"}, {"-h"}, {"--help"}}) {
    EXPECT_EQ(run(args), 0);
    EXPECT_EQ(out().rfind("usage: dmc <commands...>\n# commands:\n  start <mount> ", 0), 0u)
        << out();
    EXPECT_NE(out().find(
                  "\n  configure <mount> <type> <access_time> <read_throughput> <write_throughput> "
                  "[<ioqueue_depth> <maxreadcnt> <maxwritecnt> <segreadcnt> <segwritecnt>]\n"),
              std::string::npos);
    EXPECT_NE(out().find("\n  help | -h"), std::string::npos);
  }
}

// Issue 13, item 8: `dmc help --help` failed ("unknown command '--help'").
TEST_F(DmcCli, HelpAboutHelpIsTheUsage) {
  for (std::vector<std::string> args : {std::vector<std::string>{"help", "--help"},
                                        {"help", "-h"},
                                        {"help", "help"},
                                        {"-h", "--help"},
                                        {"--help", "help"}}) {
    EXPECT_EQ(run(args), 0) << args[0] << " " << args[1] << ": " << err();
    EXPECT_EQ(out().rfind("usage: dmc <commands...>\n", 0), 0u) << out();
    EXPECT_EQ(err(), "");
  }
}

// Issue 13, item 8: every JSON document has a schema_version, predict's too.
TEST_F(DmcCli, PredictJsonHasASchemaVersion) {
  EXPECT_EQ(run({"predict", "-json"}), 0);
  auto j = nlohmann::ordered_json::parse(out());
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["profiles"].size(), 8u);
  EXPECT_EQ(j["profiles"][0]["profile"], "Faulty 5400 HDD");
  EXPECT_EQ(j["profiles"][0]["predictions"].size(), 7u);
  EXPECT_EQ(run({"predict", "3", "-json"}), 0);
  j = nlohmann::ordered_json::parse(out());
  ASSERT_EQ(j["profiles"].size(), 1u);
  EXPECT_EQ(j["profiles"][0]["profile"], "Slow SSD");
}

TEST_F(DmcCli, EveryCommandHasItsOwnHelpWithoutRoot) {
  is_root_ = false;
  for (const CommandSpec& spec : command_table()) {
    std::string name(spec.name);
    EXPECT_EQ(run({name, "--help"}), 0) << name;
    EXPECT_EQ(out().rfind("usage: dmc " + name, 0), 0u) << out();
    std::string via_help_command = out();
    EXPECT_EQ(run({"help", name}), 0);
    EXPECT_EQ(out(), via_help_command);
    EXPECT_EQ(run({name, "-h"}), 0);
    EXPECT_EQ(out(), via_help_command);
  }
  EXPECT_EQ(fake_.calls, std::vector<std::string>{});
}

TEST_F(DmcCli, ReadingNeedsNoRoot) {
  is_root_ = false;
  for (std::vector<std::string> args : {std::vector<std::string>{"list"},
                                        {"list", "-json"},
                                        {"show", "0"},
                                        {"show", "0", "-json"},
                                        {"predict"},
                                        {"predict", "3", "-json"},
                                        {"status", mount_},
                                        {"status", mount_, "-json"},
                                        {"help"},
                                        {"--version"}}) {
    EXPECT_EQ(run(args), 0) << args[0] << ": " << err();
    EXPECT_EQ(err(), "");
  }
}

TEST_F(DmcCli, Version) {
  EXPECT_EQ(run({"--version"}), 0);
  EXPECT_EQ(out(), std::string("dmc (diskcond) ") + DISKCOND_VERSION + "\n");
}

TEST_F(DmcCli, ChangesNeedRootAndSayItInOneLine) {
  ASSERT_EQ(run({"configure", mount_, "SSD", "1", "2", "3"}), 0);  // as root: something stored
  auto before = store_files();
  is_root_ = false;
  fake_.calls.clear();
  const std::vector<std::vector<std::string>> changes = {
      {"start", mount_, "0"},
      {"start", mount_},
      {"stop", mount_},
      {"select", mount_, "1"},
      {"configure", mount_, "HDD", "1", "2", "3"},
      {"boot"}};
  for (const auto& args : changes) {
    EXPECT_EQ(run(args), 3) << args[0];
    // boot is root's alone; the others are for root and the directory's owner (root here).
    EXPECT_EQ(err(),
              args[0] == "boot"
                  ? "dmc: 'dmc boot' changes mount settings and needs root; run it with sudo\n"
                  : "dmc: 'dmc " + args[0] + "' on " + mount_ +
                        " (owned by uid 0) needs root: without root, dmc changes only your "
                        "own directories and mounts; run it with sudo\n");
    EXPECT_EQ(out(), "");
  }
  for (const std::string& call : fake_.calls) {
    EXPECT_TRUE(call.rfind("status ", 0) == 0 || call.rfind("check ", 0) == 0) << call;
  }
  EXPECT_EQ(store_files(), before);
}

// Issue 17, item 2: an ordinary user changes their own directory and the mount they started,
// never with -boot; another user's mount is refused by whose it is.
TEST_F(DmcCli, AUserChangesTheirOwnDirectoryAndMount) {
  is_root_ = false;
  fake_.directory_owner = user_uid_;
  EXPECT_EQ(run({"select", mount_, "3"}), 0) << err();
  EXPECT_EQ(run({"start", mount_}), 0) << err();
  EXPECT_EQ(fake_.mounts.at(mount_).settings.profile.name, "Slow SSD");
  EXPECT_EQ(run({"configure", mount_, "HDD", "12ms", "80", "60"}), 0) << err();
  EXPECT_EQ(fake_.mounts.at(mount_).settings.profile.name, "Custom");
  EXPECT_EQ(run({"stop", mount_}), 0) << err();
  EXPECT_EQ(run({"start", mount_, "0", "-boot"}), 3);
  EXPECT_EQ(err(),
            "dmc: '-boot' installs a mount that dmc-boot.service re-applies and needs root; run it "
            "with sudo, or start without -boot\n");
  EXPECT_EQ(fake_.mounts.count(mount_), 0u);

  fake_.add_running(other_mount_, {builtin_profiles()[0], mount::CacheMode::kPageCache}).owner =
      4321;
  EXPECT_EQ(run({"select", other_mount_, "1"}), 3);
  EXPECT_EQ(err(), "dmc: 'dmc select' on " + other_mount_ +
                       " (conditioned by uid 4321) needs root: without root, dmc changes only "
                       "your own directories and mounts; run it with sudo\n");
  EXPECT_EQ(fake_.mounts.at(other_mount_).settings.profile.name, "Faulty 5400 HDD");
}

TEST_F(DmcCli, BadInputIsOneLineNonZeroAndChangesNothing) {
  ASSERT_EQ(run({"configure", mount_, "HDD", "12ms", "80", "60"}), 0);
  fake_.add_running(other_mount_, {builtin_profiles()[0], mount::CacheMode::kPageCache});
  auto before = store_files();
  ASSERT_EQ(before.size(), 3u);  // the mounts directory, its lock file and one record
  fake_.calls.clear();
  const std::string missing = root_ + "/missing";
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"bogus"},
      {"-json"},
      {"start"},
      {"start", mount_, "99"},
      {"start", mount_, "-1"},
      {"start", mount_, "No Such Disk"},
      {"start", mount_, "0", "extra"},
      {"start", mount_, "0", "-bogus"},
      {"start", missing, "0"},
      {"start", file_, "0"},
      {"start", "", "0"},
      {"stop"},
      {"stop", other_mount_, "now"},
      {"stop", other_mount_, "-json"},
      {"stop", missing},
      {"status"},
      {"status", missing},
      {"status", file_},
      {"status", mount_, "-xml"},
      {"status", mount_, "extra"},
      {"show"},
      {"show", "8"},
      {"show", "-1"},
      {"show", "0", "1"},
      {"show", "0", "-boot"},
      {"list", "x"},
      {"list", "-boot"},
      {"predict", "8"},
      {"predict", "0", "1"},
      {"predict", "-xml"},
      {"select", mount_},
      {"select", other_mount_, "nope"},
      {"select", other_mount_, "1", "2"},
      {"select", file_, "1"},
      {"configure", other_mount_, "SSD", "1", "2"},
      {"configure", other_mount_, "XYZ", "1", "2", "3"},
      {"configure", other_mount_, "SSD", "-1", "2", "3"},
      {"configure", other_mount_, "SSD", "1", "-2", "3"},
      {"configure", other_mount_, "SSD", "1", "2", "abc"},
      {"configure", other_mount_, "SSD", "61s", "2", "3"},
      {"configure", other_mount_, "SSD", "1", "99999999999999", "3"},
      {"configure", other_mount_, "SSD", "1", "2", "3", "0"},
      {"configure", other_mount_, "SSD", "1", "2", "3", "99999999999"},
      {"configure", other_mount_, "SSD", "1", "2", "3", "4", "100"},
      {"configure", other_mount_, "SSD", "1", "2", "3", "4", "1m", "1m", "-1", "1"},
      {"configure", other_mount_, "SSD", "1", "2", "3", "4", "1m", "1m", "1", "1", "extra"},
      {"configure", missing, "SSD", "1", "2", "3"},
      {"configure", mount_, "SSD", "1", "2", "3", "-boot"},
      {"boot", "now"},
      {"help", "bogus"},
      {"help", "start", "x"},
      {"--version", "x"},
  };
  for (const auto& args : bad) {
    std::string shown;
    for (const auto& a : args) shown += "[" + a + "]";
    int code = run(args);
    EXPECT_EQ(code, 2) << shown << " -> " << err();
    EXPECT_EQ(line_count(err()), 1u) << shown << " -> " << err();
    EXPECT_EQ(err().rfind("dmc: ", 0), 0u) << shown << " -> " << err();
    EXPECT_EQ(out(), "") << shown;
  }
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
  EXPECT_EQ(store_files(), before);
}

TEST_F(DmcCli, RunHandsTheCommandToTheMachineryAndExitsWithItsStatus) {
  is_root_ = false;  // any user may run
  const auto before = store_files();
  fake_.run_end.exit_code = 3;
  EXPECT_EQ(run({"run", mount_, "Slow SSD", "--", "sh", "-c", "exit 3", "--", "-x"}), 3) << err();
  EXPECT_EQ(err(), "");
  EXPECT_EQ(out(), "");
  EXPECT_EQ(
      fake_.changing_calls(),
      std::vector<std::string>{"run " + mount_ + " Slow SSD writeback -- sh -c exit 3 -- -x"});
  fake_.calls.clear();
  fake_.run_end = mount::CommandEnd{.exit_code = 128 + 9, .signal = 9};
  EXPECT_EQ(run({"run", "-nocache", mount_, "0", "--", "true"}), 137);
  EXPECT_EQ(run({"run", mount_, "0", "-writethrough", "--", "true"}), 137);
  EXPECT_EQ(fake_.changing_calls(),
            (std::vector<std::string>{"run " + mount_ + " Faulty 5400 HDD nocache -- true",
                                      "run " + mount_ + " Faulty 5400 HDD writethrough -- true"}));
  EXPECT_EQ(store_files(), before);  // dmc run stores nothing
}

TEST_F(DmcCli, RunSaysWhyTheCommandCouldNotRunAndWarnsAboutTeardown) {
  fake_.run_end =
      mount::CommandEnd{.exit_code = 127, .error = "cannot run 'nope': No such file or directory"};
  EXPECT_EQ(run({"run", mount_, "0", "--", "nope"}), 127);
  EXPECT_EQ(err(), "dmc: cannot run 'nope': No such file or directory\n");
  fake_.run_end =
      mount::CommandEnd{.exit_code = 0, .warnings = {"the daemon wrote to its log; kept: /x.log"}};
  EXPECT_EQ(run({"run", mount_, "0", "--", "true"}), 0);
  EXPECT_EQ(err(), "dmc: warning: the daemon wrote to its log; kept: /x.log\n");
  fake_.fail_run = "no /dev/fuse: load the fuse module";
  EXPECT_EQ(run({"run", mount_, "0", "--", "true"}), 1);
  EXPECT_EQ(err(), "dmc: cannot condition " + mount_ +
                       " for the command: no /dev/fuse: load the fuse module\n");
}

TEST_F(DmcCli, RunRefusesBadInputAndConditionedDirectoriesAndChangesNothing) {
  fake_.add_running(other_mount_, {builtin_profiles()[2], mount::CacheMode::kWriteBack});
  std::filesystem::create_directories(other_mount_ + "/sub");
  const auto before = store_files();
  fake_.calls.clear();
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"run"}, 2},
      {{"run", mount_}, 2},
      {{"run", mount_, "0"}, 2},
      {{"run", mount_, "0", "true"}, 2},
      {{"run", mount_, "0", "--"}, 2},
      {{"run", mount_, "99", "--", "true"}, 2},
      {{"run", mount_, "No Such Disk", "--", "true"}, 2},
      {{"run", root_ + "/missing", "0", "--", "true"}, 2},
      {{"run", file_, "0", "--", "true"}, 2},
      {{"run", "/", "0", "--", "true"}, 2},
      {{"run", mount_, "0", "-boot", "--", "true"}, 2},
      {{"run", mount_, "0", "-nocache", "-writethrough", "--", "true"}, 2},
      {{"run", other_mount_, "0", "--", "true"}, 4},
      {{"run", other_mount_ + "/sub", "0", "--", "true"}, 4},
  };
  for (const auto& [args, code] : cases) {
    std::string shown;
    for (const auto& a : args) shown += "[" + a + "]";
    EXPECT_EQ(run(args), code) << shown << " -> " << err();
    EXPECT_EQ(line_count(err()), 1u) << shown << " -> " << err();
    EXPECT_EQ(err().rfind("dmc: ", 0), 0u) << shown << " -> " << err();
    EXPECT_EQ(out(), "") << shown;
  }
  EXPECT_EQ(run({"run", other_mount_, "0", "--", "true"}), 4);
  EXPECT_EQ(err(), "dmc: " + other_mount_ +
                       " is already conditioned (profile '7200 HDD'); run the command there as "
                       "it is, or 'dmc stop " +
                       other_mount_ + "' first\n");
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{});
  EXPECT_EQ(store_files(), before);
  EXPECT_EQ(run({"run", "--help"}), 0);
  EXPECT_EQ(out().rfind("usage: dmc run <dir> (profile_name|profile_index) "
                        "[-writethrough|-nocache] [-faults <file>] [-crashable] -- <command> "
                        "[args...]\n",
                        0),
            0u)
      << out();
}

}  // namespace
}  // namespace diskcond::dmc
