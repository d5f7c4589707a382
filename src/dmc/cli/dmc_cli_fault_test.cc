// dmc fault add|list|remove|clear and start -faults against the fake mount machinery: what each
// sends, what it prints, and that bad input is one line, a non-zero exit and no change.
#include <gtest/gtest.h>

#include <cerrno>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "dmc/cli/cli_test_fixture.h"

namespace diskcond::dmc {
namespace {

class DmcCliFault : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    fake_.add_running(mount_,
                      mount::MountSettings{builtin_profiles()[0], mount::CacheMode::kWriteBack});
  }
};

TEST_F(DmcCliFault, AddSendsTheRuleAndPrintsItsIdAndWords) {
  EXPECT_EQ(run({"fault", "add", mount_, "path=*.db", "ops=read", "error=EIO", "every=2"}), 0)
      << err();
  EXPECT_EQ(out(), "1: path=*.db ops=read error=EIO every=2\n");
  EXPECT_EQ(err(), "");
  EXPECT_EQ(
      fake_.changing_calls(),
      std::vector<std::string>{"fault add " + mount_ + " path=*.db ops=read error=EIO every=2"});
}

TEST_F(DmcCliFault, AProbabilityWithoutSeedGetsOnePrintedAndSent) {
  EXPECT_EQ(run({"fault", "add", mount_, "ops=write", "error=ENOSPC", "p=0.1"}), 0) << err();
  ASSERT_EQ(fake_.faults[mount_].rules.size(), 1u);
  const FaultRule& sent = fake_.faults[mount_].rules[0].rule;
  EXPECT_TRUE(sent.has_seed);
  EXPECT_EQ(out(), "1: " + fault_rule_text(sent) + "\n");
  EXPECT_NE(out().find(" seed="), std::string::npos);
}

TEST_F(DmcCliFault, ListShowsIdsAndCountsAsTextAndJson) {
  ASSERT_EQ(run({"fault", "add", mount_, "ops=read", "error=EIO", "every=2"}), 0);
  ASSERT_EQ(run({"fault", "add", mount_, "path=a/*", "ops=unlink", "error=EROFS"}), 0);
  fake_.faults[mount_].rules[0].matched = 10;
  fake_.faults[mount_].rules[0].fired = 5;
  fake_.faults[mount_].injected = 5;
  is_root_ = false;  // listing needs no root
  EXPECT_EQ(run({"fault", "list", mount_}), 0) << err();
  EXPECT_EQ(out(), "Fault rules of " + mount_ +
                       ": 2; 5 injected since start\n"
                       " 1: path=* ops=read error=EIO every=2 (matched 10, injected 5)\n"
                       " 2: path=a/* ops=unlink error=EROFS (matched 0, injected 0)\n");
  EXPECT_EQ(run({"fault", "list", mount_, "-json"}), 0) << err();
  auto j = nlohmann::json::parse(out());
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["mount"], mount_);
  EXPECT_EQ(j["faults_injected"], 5);
  ASSERT_EQ(j["rules"].size(), 2u);
  EXPECT_EQ(j["rules"][0]["id"], 1);
  EXPECT_EQ(j["rules"][0]["rule"], "path=* ops=read error=EIO every=2");
  EXPECT_EQ(j["rules"][0]["matched_requests"], 10);
  EXPECT_EQ(j["rules"][0]["injected_faults"], 5);
}

TEST_F(DmcCliFault, LogShowsEachFaultAsTextAndJson) {
  is_root_ = false;
  EXPECT_EQ(run({"fault", "log", mount_}), 0) << err();
  EXPECT_EQ(out(), "No faults injected on " + mount_ + "\n");
  FaultEvent read{
      7, 1'000'000'000, 1, FaultOp::kRead, "a/x.db", 4096, 8192, FaultAction::kError, EIO, 0, 321};
  FaultEvent write{8, 2'000'000'000, 2,  FaultOp::kWrite, "log", 0, 4096, FaultAction::kShort,
                   0, 2048,          322};
  FaultEvent unlink{
      9, 3'000'000'000, 3, FaultOp::kUnlink, "keep/a", 0, 0, FaultAction::kError, EROFS, 0, 323};
  fake_.fault_events[mount_] = {read, write, unlink};
  EXPECT_EQ(run({"fault", "log", mount_}), 0) << err();
  const std::string text = out();
  ASSERT_EQ(line_count(text), 3u) << text;
  EXPECT_NE(text.find(" pid 321 read a/x.db bytes 4096+8192: EIO (rule 1)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find(" pid 322 write log bytes 0+4096: short, 2048 of 4096 bytes done (rule 2)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" pid 323 unlink keep/a: EROFS (rule 3)\n"), std::string::npos) << text;
  EXPECT_EQ(run({"fault", "log", mount_, "-json"}), 0) << err();
  auto j = nlohmann::json::parse(out());
  EXPECT_EQ(j["mount"], mount_);
  ASSERT_EQ(j["faults"].size(), 3u);
  EXPECT_EQ(j["faults"][0]["seq"], 7);
  EXPECT_EQ(j["faults"][0]["at_monotonic_ns"], 1'000'000'000);
  EXPECT_EQ(j["faults"][0]["op"], "read");
  EXPECT_EQ(j["faults"][0]["path"], "a/x.db");
  EXPECT_EQ(j["faults"][0]["offset_bytes"], 4096);
  EXPECT_EQ(j["faults"][0]["length_bytes"], 8192);
  EXPECT_EQ(j["faults"][0]["action"], "error");
  EXPECT_EQ(j["faults"][0]["error"], "EIO");
  EXPECT_EQ(j["faults"][0]["pid"], 321);
  EXPECT_EQ(j["faults"][0]["rule_id"], 1);
  EXPECT_EQ(j["faults"][1]["action"], "short");
  EXPECT_TRUE(j["faults"][1]["error"].is_null());
  EXPECT_EQ(j["faults"][1]["done_bytes"], 2048);
  EXPECT_TRUE(fake_.changing_calls().empty());
}

TEST_F(DmcCliFault, TheOtherKindsAreLoggedInTheirWords) {
  FaultEvent corrupt{
      1, 1'000'000'000, 1, FaultOp::kRead, "a.db", 0, 4096, FaultAction::kCorrupt, 0, 0, 321};
  FaultEvent lost{
      2, 1'000'000'000, 2, FaultOp::kWrite, "log", 0, 4096, FaultAction::kLostWrite, 0, 0, 322};
  FaultEvent bad{
      3,  1'000'000'000, 3, FaultOp::kRead, "d.img", 4096, 512, FaultAction::kBadSectors, EIO, 0,
      323};
  FaultEvent stall{
      4, 2'000'000'000, 4, FaultOp::kRead, "", 0, 2'500'000'000, FaultAction::kStall, 0, 0, 0};
  FaultEvent held{5, 3'000'000'000, 5, FaultOp::kRead, "", 0, 0, FaultAction::kStall, 0, 0, 0};
  fake_.fault_events[mount_] = {corrupt, lost, bad, stall, held};
  EXPECT_EQ(run({"fault", "log", mount_}), 0) << err();
  const std::string text = out();
  for (const char* line :
       {" pid 321 read a.db bytes 0+4096: corrupted (the reply's bytes, not the file's) (rule 1)\n",
        " pid 322 write log bytes 0+4096: lost (acknowledged, not stored) (rule 2)\n",
        " pid 323 read d.img bytes 4096+512: EIO (bad sector) (rule 3)\n",
        " device stall of 2.500 s (rule 4)\n", " device stall until released (rule 5)\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << text;
  }
  EXPECT_EQ(run({"fault", "log", mount_, "-json"}), 0) << err();
  auto j = nlohmann::json::parse(out());
  EXPECT_EQ(j["faults"][0]["action"], "corrupt");
  EXPECT_EQ(j["faults"][1]["action"], "lost-write");
  EXPECT_EQ(j["faults"][2]["action"], "bad-sector");
  EXPECT_EQ(j["faults"][2]["error"], "EIO");
  EXPECT_EQ(j["faults"][3]["action"], "stall");
  EXPECT_TRUE(j["faults"][3]["op"].is_null());
  EXPECT_EQ(j["faults"][3]["stall_ns"], 2'500'000'000);
}

TEST_F(DmcCliFault, ReleaseNeedsRootAndSaysWhatItEnded) {
  is_root_ = false;
  EXPECT_EQ(run({"fault", "release", mount_}), 3);
  EXPECT_TRUE(fake_.changing_calls().empty());
  is_root_ = true;
  EXPECT_EQ(run({"fault", "release", mount_}), 0) << err();
  EXPECT_EQ(out(), "No stall in progress on " + mount_ + "\n");
  fake_.stalls_to_release = 1;
  EXPECT_EQ(run({"fault", "release", mount_}), 0) << err();
  EXPECT_EQ(out(), "Released the stall of 1 rule on " + mount_ + "\n");
  EXPECT_EQ(fake_.calls.back(), "fault release " + mount_);
}

TEST_F(DmcCliFault, AStallWithARandomLengthGetsASeed) {
  ASSERT_EQ(run({"fault", "add", mount_, "stall=1s-3s", "period=1m"}), 2);
  ASSERT_EQ(run({"fault", "add", mount_, "stall=1s-3s", "period=60s"}), 0) << err();
  EXPECT_EQ(out().rfind("1: stall=1s-3s period=60s seed=", 0), 0u) << out();
}

TEST_F(DmcCliFault, RemoveAndClear) {
  ASSERT_EQ(run({"fault", "add", mount_, "ops=read", "error=EIO"}), 0);
  ASSERT_EQ(run({"fault", "add", mount_, "ops=write", "error=EIO"}), 0);
  EXPECT_EQ(run({"fault", "remove", mount_, "1"}), 0) << err();
  ASSERT_EQ(fake_.faults[mount_].rules.size(), 1u);
  EXPECT_EQ(fake_.faults[mount_].rules[0].id, 2u);
  EXPECT_EQ(run({"fault", "remove", mount_, "1"}), 1);
  EXPECT_EQ(err(), "dmc: cannot remove rule 1 of " + mount_ + ": no fault rule 1\n");
  EXPECT_EQ(run({"fault", "clear", mount_}), 0) << err();
  EXPECT_TRUE(fake_.faults[mount_].rules.empty());
}

TEST_F(DmcCliFault, BadInputIsOneLineAndChangesNothing) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"fault", "add", mount_, "ops=read"},
       "dmc: bad rule: a rule needs one action: error=NAME, short, corrupt, lost-write, bad= or "
       "stall=\n"},
      {{"fault", "add", mount_, "ops=read", "error=EWHAT"},
       "dmc: bad rule: unknown error 'EWHAT' (EIO, ENOSPC, EROFS, EDQUOT, EACCES, ...; see dmc "
       "fault --help)\n"},
      {{"fault", "add", mount_},
       "dmc: 'dmc fault add' takes a rule after <mount> (see 'dmc "
       "fault --help')\n"},
      {{"fault", "remove", mount_, "x"},
       "dmc: 'x' is not a rule id (a number from 'dmc fault list')\n"},
      {{"fault", "remove", mount_},
       "dmc: 'dmc fault remove' takes one rule id after <mount> "
       "(see 'dmc fault --help')\n"},
      {{"fault", "clear", mount_, "1"},
       "dmc: 'dmc fault clear' takes nothing after <mount> (see "
       "'dmc fault --help')\n"},
      {{"fault", "add", mount_, "ops=read", "error=EIO", "-json"},
       "dmc: option '-json' does not apply to 'dmc fault add'\n"},
      {{"fault", "break", mount_},
       "dmc: unknown fault command 'break' (add, list, remove, clear, release or log; see 'dmc "
       "fault --help')\n"},
  };
  for (const auto& [args, message] : cases) {
    EXPECT_EQ(run(args), 2) << args[1];
    EXPECT_EQ(err(), message);
    EXPECT_EQ(out(), "");
  }
  EXPECT_TRUE(fake_.changing_calls().empty());
}

TEST_F(DmcCliFault, ChangesNeedRootAndAConditionedDirectory) {
  is_root_ = false;
  EXPECT_EQ(run({"fault", "add", mount_, "ops=read", "error=EIO"}), 3);
  EXPECT_EQ(err(),
            "dmc: 'dmc fault add' changes a mount's fault rules and needs root; run it with "
            "sudo\n");
  EXPECT_EQ(run({"fault", "clear", mount_}), 3);
  is_root_ = true;
  EXPECT_EQ(run({"fault", "add", other_mount_, "ops=read", "error=EIO"}), 4);
  EXPECT_EQ(err(), "dmc: " + other_mount_ + " is not conditioned\n");
  EXPECT_TRUE(fake_.changing_calls().empty());
}

TEST_F(DmcCliFault, StartReadsTheFaultsFileAndRefusesABadOne) {
  const std::string file = root_ + "/faults.rules";
  std::ofstream(file) << "# two rules\n"
                         "path=*.db ops=read error=EIO every=2\n"
                         "ops=write error=ENOSPC p=0.5 seed=9\n";
  EXPECT_EQ(run({"start", other_mount_, "0", "-faults", file}), 0) << err();
  EXPECT_EQ(out(),
            "fault rule 1: path=*.db ops=read error=EIO every=2\n"
            "fault rule 2: path=* ops=write error=ENOSPC p=0.5 seed=9\n");
  ASSERT_EQ(fake_.mounts[other_mount_].settings.faults.size(), 2u);
  EXPECT_EQ(fault_rule_text(fake_.mounts[other_mount_].settings.faults[1]),
            "path=* ops=write error=ENOSPC p=0.5 seed=9");

  const std::string third = root_ + "/third";
  std::filesystem::create_directories(third);
  std::ofstream(file) << "ops=read error=EIO\nops=reed error=EIO\n";
  const size_t calls = fake_.changing_calls().size();
  EXPECT_EQ(run({"start", third, "0", "-faults", file}), 2);
  EXPECT_EQ(err(), "dmc: " + file +
                       ":2: unknown operation 'reed' (read, write, fsync, open, create, unlink, "
                       "rename, mkdir, rmdir, setattr or all)\n");
  EXPECT_EQ(run({"start", third, "0", "-faults", root_ + "/missing"}), 2);
  EXPECT_EQ(err(), "dmc: cannot read the faults file '" + root_ + "/missing'\n");
  EXPECT_EQ(fake_.changing_calls().size(), calls);
  EXPECT_FALSE(store().load(third)->has_value());
}

TEST_F(DmcCliFault, StartReadsATomlFaultsFileAndPrintsTheSeedsItPicked) {
  const std::string file = root_ + "/faults.toml";
  std::ofstream(file) << "[[rule]]\n"
                         "path = \"*.db\"\n"
                         "ops = \"read\"\n"
                         "corrupt = true\n"
                         "\n"
                         "[[rule]]\n"
                         "stall = \"100ms-2s\"\n"
                         "period = \"30s\"\n"
                         "p = 0.5\n"
                         "seed = 4\n";
  EXPECT_EQ(run({"start", other_mount_, "0", "-faults", file}), 0) << err();
  EXPECT_EQ(out().rfind("fault rule 1: path=*.db ops=read corrupt seed=", 0), 0u) << out();
  EXPECT_NE(out().find("\nfault rule 2: stall=100ms-2s period=30s p=0.5 seed=4\n"),
            std::string::npos)
      << out();
  ASSERT_EQ(fake_.mounts[other_mount_].settings.faults.size(), 2u);
  EXPECT_TRUE(fake_.mounts[other_mount_].settings.faults[0].has_seed);

  const std::string third = root_ + "/third";
  std::filesystem::create_directories(third);
  std::ofstream(file) << "[[rule]]\nstall = \"1s\"\nops = \"read\"\n";
  const size_t calls = fake_.changing_calls().size();
  EXPECT_EQ(run({"start", third, "0", "-faults", file}), 2);
  EXPECT_EQ(err(),
            "dmc: " + file +
                ":1: ops does not go with stall= (it takes stall=, at=, period=, p=, seed)\n");
  EXPECT_EQ(fake_.changing_calls().size(), calls);
}

// dmc run -faults FILE -crashable: the mount the command gets starts with the rules (printed on
// stderr, stdout being the command's) and the undo log; a bad file runs nothing.
TEST_F(DmcCliFault, RunStartsTheMountWithTheFaultsFileAndCrashable) {
  is_root_ = false;  // any user may run
  const std::string file = root_ + "/faults.rules";
  std::ofstream(file) << "path=*.db ops=read error=EIO every=2\n"
                         "ops=write error=ENOSPC p=0.5 seed=9\n";
  EXPECT_EQ(run({"run", other_mount_, "0", "-faults", file, "-crashable", "--", "true"}), 0)
      << err();
  EXPECT_EQ(out(), "");
  EXPECT_EQ(err(),
            "dmc: fault rule 1: path=*.db ops=read error=EIO every=2\n"
            "dmc: fault rule 2: path=* ops=write error=ENOSPC p=0.5 seed=9\n");
  EXPECT_EQ(fake_.changing_calls(),
            std::vector<std::string>{"run " + other_mount_ +
                                     " Faulty 5400 HDD writeback crashable [path=*.db ops=read "
                                     "error=EIO every=2] [path=* ops=write error=ENOSPC p=0.5 "
                                     "seed=9] -- true"});
  fake_.calls.clear();
  std::ofstream(file) << "ops=read corrupt\n";  // a seed is picked and printed
  EXPECT_EQ(run({"run", other_mount_, "0", "-faults", file, "--", "true"}), 0) << err();
  EXPECT_EQ(err().rfind("dmc: fault rule 1: path=* ops=read corrupt seed=", 0), 0u) << err();
  EXPECT_EQ(fake_.changing_calls().size(), 1u);
  EXPECT_EQ(fake_.changing_calls()[0].find(" crashable"), std::string::npos);

  fake_.calls.clear();
  std::ofstream(file) << "ops=read error=EIO\nops=reed error=EIO\n";
  EXPECT_EQ(run({"run", other_mount_, "0", "-faults", file, "--", "true"}), 2);
  EXPECT_EQ(err(), "dmc: " + file +
                       ":2: unknown operation 'reed' (read, write, fsync, open, create, unlink, "
                       "rename, mkdir, rmdir, setattr or all)\n");
  EXPECT_EQ(run({"run", other_mount_, "0", "-faults", root_ + "/missing", "--", "true"}), 2);
  EXPECT_EQ(err(), "dmc: cannot read the faults file '" + root_ + "/missing'\n");
  EXPECT_EQ(run({"run", other_mount_, "0", "-faults", "--", "true"}), 2);
  EXPECT_EQ(line_count(err()), 1u) << err();
  EXPECT_EQ(out(), "");
  EXPECT_TRUE(fake_.changing_calls().empty());
}

}  // namespace
}  // namespace diskcond::dmc
