// Issue 6, bad and hostile input, for rawio and `rawio report`: every option with bad values,
// generated from one table, plus missing, extra, duplicated and conflicting words and absurd
// combinations, run through the built binary (RAWIO_BINARY). Each case must exit with its class's
// code, say one line on stderr, print nothing on stdout (also with --json) and change nothing:
// no test file made (or made and removed), no history database written or created.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tools/bad_input_harness.h"

namespace diskcond::tools {
namespace {

// An option and the values it must refuse. `short_name` may be empty.
struct OptionValues {
  std::string short_name, long_name;
  std::vector<std::string> bad;
  std::string good, other_good;  // two values it accepts, for the duplicated-option case
  // Words the option needs to be accepted at all (--arrival needs --rate), given with it. With
  // "--steady-state" among them the base words' -t is left out (they conflict).
  std::vector<std::string> with = {};
};

const std::vector<OptionValues>& run_options() {
  static const std::vector<OptionValues> options = {
      {"-v", "--verbose", {"4", "-1", "1.5", "x", "", "99999999999999999999"}, "1", "2"},
      {"-n",
       "--size",
       {"0", "-1", "1x", "", "1.5", "k", "99999999999999999999", "16e", "1m1", "0x100"},
       "1m",
       "2m"},
      {"-s", "--transfer-size", {"0", "-4k", "2g", "1.5", "x", "", "4kk", "1g1"}, "4k", "8k"},
      {"-p", "--workers", {"0", "-1", "1025", "1.5", "x", "", "99999999999999999999"}, "1", "2"},
      {"-q", "--iodepth", {"0", "-1", "4097", "1.5", "x", ""}, "1", "2"},
      {"", "--submit-batch", {"0", "-1", "4097", "x", ""}, "1", "2"},
      {"-c",
       "--count",
       {"0", "-1", "1.5", "x", "", "99999999999999999999", "00", "PASS", "passes", "pass1"},
       "10",
       "pass"},
      {"-t",
       "--time",
       {"0", "-1s", "0.5ns", "25h", "90000s", "x", "", "1y", "0ms"},
       "100ms",
       "200ms"},
      {"", "--warmup", {"-1s", "0.5ns", "25h", "x", "", "1y"}, "0", "10ms"},
      {"", "--seed", {"-1", "x", "1.5", "", "99999999999999999999"}, "1", "2"},
      {"-e", "--engine", {"nope", "", "PSYNC", "psync,null", "x\ny"}, "null", "psync"},
      {"-d", "--direct", {"yes", "", "ON", "1", "on\n"}, "auto", "off"},
      {"", "--units", {"MiB", "", "kb", "mib,iops", "x\ny"}, "mib", "iops"},
      {"", "--db", {""}, "a.db", "b.db"},  // the base words have --save; relative to the world
      {"", "--repeat", {"0", "-1", "1001", "x", "", "1.5"}, "1", "2"},
      {"",
       "--rate",
       {"0", "0/s", "-1", "x", "", "1e3", "2000/m", "/s", "1.5.5", "nan", "inf", "1000000001",
        "2000 /s", "99999999999999999999999999999999999999"},
       "1000/s",
       "500"},
      {"",
       "--arrival",
       {"foo", "", "FIXED", "fixed,poisson", "x\ny"},
       "fixed",
       "poisson",
       {"--rate", "1000/s"}},
      {"",
       "--ss-window",
       {"0", "0s", "-1s", "1500ms", "0.5s", "2h", "x", "", "1y"},
       "1s",
       "1",
       {"--steady-state"}},
      {"", "--ss-rounds", {"4", "0", "-1", "10001", "1.5", "x", ""}, "5", "6", {"--steady-state"}},
      {"", "--precondition", {"-1", "101", "1.5", "x", ""}, "0", "0"},
      {"", "--latency-log", {""}, "log.csv", "log2.csv"},
  };
  return options;
}

// rawio compare's options; each case compares the saved run with itself unless the value is bad.
const std::vector<OptionValues>& compare_options() {
  static const std::vector<OptionValues> options = {
      {"", "--last", {"0", "-1", "x", "", "1.5", "99999999999999999999", "2000000"}, "1", "1"},
      {"", "--metric", {"IOPS", "", "p50", "iops,p99", "x\ny"}, "iops", "p99"},
      {"", "--alpha", {"0", "0.6", "-0.01", "x", "", "1e-10", "nan", "5%x", "%"}, "0.05", "1%"},
      {"",
       "--threshold",
       {"-1", "-5%", "x", "", "1001%", "11", "5", "nan", "inf", "%", "5%%"},
       "5%",
       "0.1"},
      {"", "--seed", {"-1", "x", "1.5", "", "99999999999999999999"}, "1", "2"},
      {"", "--db", {""}, "", ""},  // the good database is the default one
      {"", "--plot", {"x.txt", "", "plot.svgx", "plot"}, "", ""},
  };
  return options;
}

const std::vector<OptionValues>& report_options() {
  // Empty `good`: the option may be repeated (--id) or its good value depends on the test.
  static const std::vector<OptionValues> options = {
      {"", "--last", {"0", "-1", "x", "", "99999999999999999999", "2000000000", "1.5"}, "1", "2"},
      {"-i", "--id", {"nope", ""}, "", ""},  // repeatable
      {"-v", "--verbose", {"3", "-1", "x", ""}, "1", "2"},
      {"", "--plot", {"x.txt", "", "plot.svgx", "plot"}, "", ""},
      {"", "--units", {"MiB", "", "kb", "x\ny"}, "mib", "iops"},
  };
  return options;
}

// The ways a value is given to an option: "-n 1m" (or "--seed 1" where there is no short name)
// and "--size=1m". ("--size 1m" parses as "-n 1m" does.)
std::vector<std::vector<std::string>> spellings(const OptionValues& option,
                                                const std::string& value) {
  return {{option.short_name.empty() ? option.long_name : option.short_name, value},
          {option.long_name + "=" + value}};
}

class RawioBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    fs::create_directories(world_.path("dir"));
    fs::create_directories(world_.path("home"));
    std::ofstream(world_.path("data")) << std::string(1 << 20, 'd');
    // One saved run in the default database, so `rawio report` has history that must not change.
    ProgramRun saved = rawio({"-R", "-e", "null", "-n", "1m", "-s", "4k", "-p", "1", "-t", "100ms",
                              "--warmup", "0", "--no-progress", "--save", world_.path("data")});
    ASSERT_EQ(saved.code, 0) << saved.err;
    ASSERT_TRUE(fs::exists(db_path()));
    world_.freeze();
  }
  void TearDown() override { RecordProperty("cases", cases_); }  // in --gtest_output=xml

  std::string db_path() const { return world_.path("xdg/diskcond/rawio.db"); }

  ProgramRun rawio(const std::vector<std::string>& args) {
    return run_program(RAWIO_BINARY, args,
                       {"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=" + world_.path("home"),
                        "XDG_DATA_HOME=" + world_.path("xdg")},
                       world_.path(""), world_.io_dir());
  }

  void expect_rejected_case(const std::vector<std::string>& args, int code) {
    ProgramRun run = rawio(args);
    expect_rejected("rawio", args, code, run);
    world_.expect_unchanged("rawio " + shown_words(args));
    ++cases_;
  }

  // run_words() for `words` of `option`: its companions added, and the base option it replaces
  // (or, for a steady-state option, -t) left out.
  std::vector<std::string> option_case(const OptionValues& option,
                                       const std::vector<std::string>& words,
                                       bool quick_read = false) const {
    std::vector<std::string> all = option.with;
    all.insert(all.end(), words.begin(), words.end());
    const bool steady =
        std::find(option.with.begin(), option.with.end(), "--steady-state") != option.with.end();
    return run_words(all, steady ? "--time" : option.long_name, option.short_name, quick_read);
  }

  // A run that would succeed quickly, on the directory (so a wrongly accepted case shows up as a
  // test file made and a run saved in the history), with `option_words` in place of base options
  // of the same name.
  // With `quick_read`: a random read of the existing file instead, nothing made or saved (for
  // checking that good values are good without waiting for file systems to sync).
  std::vector<std::string> run_words(const std::vector<std::string>& option_words,
                                     const std::string& skip_long = "",
                                     const std::string& skip_short = "",
                                     bool quick_read = false) const {
    const std::vector<std::pair<std::string, std::string>> base = {
        {"--engine", "null"}, {"--size", "1m"},    {"--transfer-size", "4k"},
        {"--workers", "1"},   {"--time", "200ms"}, {"--warmup", "0"}};
    const std::vector<std::string> shorts = {"-e", "-n", "-s", "-p", "-t", "--warmup"};
    std::vector<std::string> words = {"-a", "--no-progress", "--save"};
    if (quick_read) words = {"-R", "--no-progress"};
    for (size_t i = 0; i < base.size(); ++i) {
      if (base[i].first == skip_long || shorts[i] == skip_short) continue;
      words.push_back(base[i].first);
      words.push_back(base[i].second);
    }
    words.insert(words.end(), option_words.begin(), option_words.end());
    words.push_back(world_.path(quick_read ? "data" : "dir"));
    return words;
  }

  SweepWorld world_{"rawio_bad_input"};
  int cases_ = 0;
};

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The cases below change one option of a good command line; this checks that it is good (and
// that each option's two good values are), so a case is refused for its bad value.
TEST_F(RawioBadInput, TheGoodWordsTheCasesStartFromAreAccepted) {
  ProgramRun run = rawio(run_words({}));
  EXPECT_EQ(run.code, 0) << run.err;
  for (const OptionValues& option : run_options()) {
    if (option.long_name == "--db") continue;  // any path will do; it needs --save
    for (const std::string& value : {option.good, option.other_good}) {
      auto args = option_case(option, {option.long_name, value}, /*quick_read=*/true);
      run = rawio(args);
      EXPECT_EQ(run.code, 0) << "rawio " << shown_words(args) << ": " << run.err;
    }
  }
}

TEST_F(RawioBadInput, EveryOptionRefusesBadValuesWithTextAndJson) {
  for (const OptionValues& option : run_options()) {
    for (const std::string& bad : option.bad) {
      for (const auto& words : spellings(option, bad)) {
        expect_rejected_case(option_case(option, words), 2);
        expect_rejected_case(option_case(option, concat({"--json"}, words)), 2);
      }
    }
  }
  EXPECT_GT(cases_, 400);
}

TEST_F(RawioBadInput, EveryOptionGivenTwiceOrWithoutItsValueIsRefused) {
  for (const OptionValues& option : run_options()) {
    std::string name = option.short_name.empty() ? option.long_name : option.short_name;
    expect_rejected_case(
        option_case(option, {name, option.good, option.long_name, option.other_good}), 2);
    std::vector<std::string> missing_value = option_case(option, {});
    missing_value.push_back(name);
    expect_rejected_case(missing_value, 2);
  }
  // Every flag: twice (each spelling, and both), and with a value.
  const std::vector<std::pair<std::string, std::string>> flags = {{"-a", "--all"},
                                                                  {"-R", "--random-read"},
                                                                  {"-S", "--sequential-read"},
                                                                  {"-W", "--random-write"},
                                                                  {"-w", "--sequential-write"},
                                                                  {"", "--json"},
                                                                  {"", "--no-progress"},
                                                                  {"", "--save"},
                                                                  {"", "--steady-state"},
                                                                  {"", "--verify"}};
  for (const auto& [short_name, long_name] : flags) {
    expect_rejected_case(run_words({long_name, long_name}), 2);
    if (!short_name.empty()) {
      expect_rejected_case(run_words({short_name, short_name}), 2);
      expect_rejected_case(run_words({short_name, long_name}), 2);
    }
    for (const char* value : {"=1", "=yes", "=false", "="})
      expect_rejected_case(run_words({long_name + value}), 2);
  }
}

TEST_F(RawioBadInput, BadWordsTargetsAndAbsurdCombinationsAreRefused) {
  const std::string dir = world_.path("dir"), data = world_.path("data");
  const std::vector<std::string> quick = {"--no-progress", "-e", "null", "-t", "200ms", "-p", "1"};
  auto run = [&](std::vector<std::string> words) { return concat(quick, words); };
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{}, 2},
      {{"-R"}, 2},  // no target
      {{dir}, 2},   // no test
      {{"--bogus", "-R", dir}, 2},
      {{"-x", "-R", dir}, 2},
      {{"-R", "--json=1", dir}, 2},
      {{"---all", dir}, 2},
      {{"-R", ""}, 2},  // empty target
      {{"-R", "/no/such/dir/x"}, 2},
      {{"-R", "/no/such\ndir"}, 2},               // a newline in the echoed path
      {{"-R", "/" + std::string(5000, 'a')}, 2},  // longer than PATH_MAX
      {{"-R", "-i", "a\nb", "/no/such/x"}, 2},
      {{"-R", world_.path("data/sub")}, 2},  // a file's child
      {{"-R", "/dev/null"}, 2},              // neither a device, a file nor a directory
      {{"-R", "-s", "2m", data}, 2},         // transfer larger than the file
      {{"-S", "-p", "1024", "-n", "1m", "-s", "4k", dir}, 2},  // more workers than transfers
      {{"-R", "-e", "io_uring", "-p", "1024", "-q", "4096", "-s", "1m", data},
       2},                                                                   // 4 TiB of buffers
      {{"-R", "-e", "null", "-p", "1", "-q", "4096", "-s", "1g", data}, 2},  // 4 TiB in one worker
      {{"-R", "-n", "1000t", dir}, 2},                    // a test file larger than the disk
      {{"-R", "-s", "1000", "-d", "on", dir}, 2},         // O_DIRECT needs 512-byte multiples
      {{"-R", "-i", "a,b", dir}, 2},                      // two ids, one target
      {{"-R", "-i", "a", dir, data}, 2},                  // one id, two targets
      {{"-R", "-i", "", dir}, 2},                         // an empty id
      {{"-R", "--db", world_.path("other.db"), dir}, 2},  // --db without --save
      {{"-R", "-c", "5", "--warmup", "1s", dir}, 2},      // a count-based run has no warm-up
      {{"-R", "--save", "--db", "", dir}, 2},             // an empty database path
      {{"-a", data}, 3},                                  // would overwrite an existing file
      {{"-W", "--force-write", dir, data}, 3},            // forcing another path lifts nothing
      {{"-R", "--arrival", "poisson", dir}, 2},           // arrivals without --rate
      {{"-R", "--ss-window", "1s", dir}, 2},              // without --steady-state
      {{"-R", "--ss-rounds", "5", dir}, 2},
      {{"-R", "--steady-state", dir}, 2},  // -t: steady state decides the length itself
      {{"-R", "--verify", dir}, 2},        // nothing written to check
      {{"-R", "--verify", "--verify", "-W", dir}, 2},
      {{"-R", "--latency-log", world_.path("no/such/x.csv"), dir}, 1},  // cannot be created
      {{"-R", "--latency-log", world_.path("home"), dir}, 1},           // a directory
      {{"-R", "--latency-log", data, data}, 2},  // the target itself: a read test writing it
      {{"-R", "--latency-log", world_.path("dir/../data"), data}, 2},
      {{"-R", "--latency-log", world_.path("new"), world_.path("new")}, 2},  // a file to be made
      {{"-R", "--save", "--db", world_.path("new.db"), "--latency-log",
        world_.path("no/such/x.csv"), dir},
       1},  // no database made for a run that cannot start
      {{"-R", "--save", "--db", world_.path("new.db"), "--verify", dir}, 2},
      {{"-R", "--precondition", "1", data}, 3},  // preconditioning writes: an existing file
      {{"-R", "--repeat", "2", "-c", "5", "--warmup", "1s", dir}, 2},
  };
  for (const auto& [words, code] : cases) {
    auto args = words.empty() ? words : run(words);
    expect_rejected_case(args, code);
    if (!args.empty()) expect_rejected_case(concat({"--json"}, args), code);
  }
  // Steady state without -t (the quick words have one).
  const std::vector<std::string> untimed = {"--no-progress", "-e", "null", "-p", "1", "-R"};
  const std::vector<std::vector<std::string>> steady_cases = {
      {"--steady-state", "-c", "5", dir},  // a count, not until steady
      {"--steady-state", "--steady-state", dir},
      {"--steady-state", "--ss-window", "1s", "--ss-window", "2s", dir},
      {"--steady-state", "--ss-rounds", "5", "--ss-rounds", "6", dir},
      {"--steady-state", "--ss-window", "1500ms", dir},  // whole seconds only
  };
  for (const auto& words : steady_cases) {
    expect_rejected_case(concat(untimed, words), 2);
    expect_rejected_case(concat({"--json"}, concat(untimed, words)), 2);
  }
}

// rawio compare: every option's bad values, sides that are missing, extra or unknown, and
// databases or plots that cannot be used. Nothing is written: the history is read only.
TEST_F(RawioBadInput, CompareRefusesBadOptionsSidesAndConflicts) {
  ProgramRun good = rawio({"compare", "1", "anon"});  // the saved run with itself
  EXPECT_EQ(good.code, 0) << good.err;
  for (const OptionValues& option : compare_options()) {
    for (const std::string& bad : option.bad) {
      for (const auto& words : spellings(option, bad)) {
        expect_rejected_case(concat(concat({"compare"}, words), {"1", "1"}), 2);
        expect_rejected_case(concat(concat({"compare", "--json"}, words), {"1", "1"}), 2);
      }
    }
    if (option.good.empty()) continue;
    for (const std::string& value : {option.good, option.other_good}) {
      ProgramRun run = rawio({"compare", option.long_name, value, "1", "1"});
      EXPECT_EQ(run.code, 0) << option.long_name << " " << value << ": " << run.err;
    }
    expect_rejected_case(
        {"compare", option.long_name, option.good, option.long_name, option.other_good, "1", "1"},
        2);
    expect_rejected_case({"compare", "1", "1", option.long_name}, 2);
  }
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"compare"}, 2},
      {{"compare", "1"}, 2},
      {{"compare", "1", "1", "1"}, 2},
      {{"compare", "0", "1"}, 2},  // no run 0 (and no ID "0")
      {{"compare", "1", "2"}, 2},  // no run 2
      {{"compare", "nope", "1"}, 2},
      {{"compare", "", "1"}, 2},
      {{"compare", "1", "a\nb"}, 2},
      {{"compare", "99999999999999999999", "1"}, 2},
      {{"compare", "--bogus", "1", "1"}, 2},
      {{"compare", "-a", "1", "1"}, 2},  // a run option
      {{"compare", "--json", "--json", "1", "1"}, 2},
      {{"compare", "--json=1", "1", "1"}, 2},
      {{"compare", "--db", world_.path("none.db"), "1", "1"}, 1},  // read, never created
      {{"compare", "--db", world_.path("dir"), "1", "1"}, 1},
      {{"compare", "--db", world_.path("data"), "1", "1"}, 1},  // not a database
      {{"compare", "--plot", world_.path("no/dir/p.svg"), "1", "1"}, 1},
  };
  for (const auto& [args, code] : cases) {
    expect_rejected_case(args, code);
    auto json = args;
    json.insert(json.begin() + 1, "--json");
    expect_rejected_case(json, code);
  }
}

TEST_F(RawioBadInput, ReportRefusesBadOptionsRunsAndConflicts) {
  for (const OptionValues& option : report_options()) {
    for (const std::string& bad : option.bad) {
      for (const auto& words : spellings(option, bad)) {
        expect_rejected_case(concat({"report"}, words), 2);
        expect_rejected_case(concat({"report", "--json"}, words), 2);
      }
    }
    if (option.good.empty()) continue;
    expect_rejected_case(
        {"report", option.long_name, option.good, option.long_name, option.other_good}, 2);
    expect_rejected_case({"report", option.long_name}, 2);
  }
  for (const std::string flag : {"--json", "--list"}) {
    expect_rejected_case({"report", flag, flag}, 2);
    for (const char* value : {"=1", "=yes", "=false"})
      expect_rejected_case({"report", flag + value}, 2);
  }
  const std::string db = db_path();
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"report", "0"}, 2},
      {{"report", "-1"}, 2},
      {{"report", "x"}, 2},
      {{"report", "1.5"}, 2},
      {{"report", ""}, 2},
      {{"report", "2"}, 2},  // no such run
      {{"report", "--id", "a\nb"}, 2},
      {{"report", "99999999999999999999"}, 2},
      {{"report", "1", "report"}, 2},
      {{"report", "--bogus"}, 2},
      {{"report", "-a"}, 2},  // a run option
      {{"report", "--db", ""}, 2},
      {{"report", "--db", db, "--db", db}, 2},
      {{"report", "--plot", world_.path("a.svg"), "--plot", world_.path("b.svg")}, 2},
      {{"report", "--db"}, 2},
      {{"report", "--id"}, 2},
      {{"report", "--plot"}, 2},
      {{"report", "--json", "--json"}, 2},
      {{"report", "--list", "--list"}, 2},
      {{"report", "--list", "1"},
       2},  // --list shows every run: a selection or a plot conflicts with it
      {{"report", "--list", "--last", "1"}, 2},
      {{"report", "--list", "--id", "anon"}, 2},
      {{"report", "--list", "--plot", world_.path("p.svg")}, 2},
      {{"report", "--list", "-v", "1"}, 2},
      {{"report", "--list", "--units", "mib"}, 2},
      {{"report", "--db", world_.path("none.db")}, 1},  // no such database: read, never created
      {{"report", "--db", world_.path("dir")}, 1},
      {{"report", "--db", world_.path("data")}, 1},  // not a database
      {{"report", "--plot", world_.path("no/dir/p.svg")}, 1},
      {{"report", "--list", "--db", world_.path("none.db")}, 1},
  };
  for (const auto& [args, code] : cases) {
    expect_rejected_case(args, code);
    auto json = args;
    json.insert(json.begin() + 1, "--json");
    expect_rejected_case(json, code);
  }
}

}  // namespace
}  // namespace diskcond::tools
