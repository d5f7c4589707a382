#include "rawio/command_line.h"

#include <gtest/gtest.h>

#include <vector>

namespace diskcond::rawio {
namespace {

ParsedCommandLine parse(std::vector<const char*> args) {
  args.insert(args.begin(), "rawio");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

TEST(RawioCommandLine, SeedInvocationsParse) {
  auto p = parse({"-a", "-v", "1", "/dev/sdb"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  const Invocation& inv = p.invocation;
  EXPECT_EQ(inv.tests.size(), 4u);
  EXPECT_EQ(inv.tests[0], TestKind::kRandomRead);
  EXPECT_EQ(inv.tests[3], TestKind::kSequentialWrite);
  EXPECT_EQ(inv.verbosity, 1);
  EXPECT_EQ(inv.targets, std::vector<std::string>{"/dev/sdb"});
  // The original's defaults.
  EXPECT_EQ(inv.transfer_bytes, 16384u);
  EXPECT_EQ(inv.workers, 8u);
  EXPECT_TRUE(inv.ids.empty());
  // Time based: a 1 s warm-up, then 5 s measured, whatever the area.
  EXPECT_FALSE(inv.count_based);
  EXPECT_EQ(inv.time_limit_ns, 5'000'000'000);
  EXPECT_EQ(inv.warmup_ns, 1'000'000'000);
  EXPECT_EQ(inv.engine->name, "psync");
  EXPECT_FALSE(inv.area_bytes.has_value());
}

TEST(RawioCommandLine, SingleTestsInTheOriginalsOrderWhateverTheFlagOrder) {
  auto p = parse({"-w", "-R", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  ASSERT_EQ(p.invocation.tests.size(), 2u);
  EXPECT_EQ(p.invocation.tests[0], TestKind::kRandomRead);
  EXPECT_EQ(p.invocation.tests[1], TestKind::kSequentialWrite);
  p = parse({"--sequential-read", "--random-write", "f"});
  ASSERT_EQ(p.invocation.tests.size(), 2u);
  EXPECT_EQ(p.invocation.tests[0], TestKind::kSequentialRead);
  EXPECT_EQ(p.invocation.tests[1], TestKind::kRandomWrite);
}

TEST(RawioCommandLine, LongFormsAndSuffixes) {
  auto p = parse({"--all",
                  "--verbose",
                  "2",
                  "--id",
                  "vinum",
                  "--size",
                  "2048s",
                  "--transfer-size",
                  "4k",
                  "--workers",
                  "2",
                  "--iodepth",
                  "32",
                  "--submit-batch",
                  "8",
                  "--count",
                  "500",
                  "--time",
                  "1500ms",
                  "--seed",
                  "9",
                  "--engine",
                  "io_uring",
                  "--direct",
                  "off",
                  "--force-write",
                  "/dev/loop3",
                  "--json",
                  "--no-progress",
                  "/dev/loop3"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  const Invocation& inv = p.invocation;
  EXPECT_EQ(inv.verbosity, 2);
  EXPECT_EQ(inv.ids, std::vector<std::string>{"vinum"});
  EXPECT_EQ(*inv.area_bytes, 2048u * 512);
  EXPECT_EQ(inv.transfer_bytes, 4096u);
  EXPECT_EQ(inv.workers, 2u);
  EXPECT_EQ(inv.iodepth, 32u);
  EXPECT_EQ(inv.submit_batch, 8u);
  EXPECT_EQ(*inv.transfer_count, 500u);
  EXPECT_EQ(inv.time_limit_ns, 1'500'000'000);
  EXPECT_EQ(inv.seed, 9u);
  EXPECT_EQ(inv.engine->name, "io_uring");
  EXPECT_EQ(inv.direct, DirectMode::kOff);
  EXPECT_EQ(inv.force_write, std::vector<std::string>{"/dev/loop3"});
  EXPECT_TRUE(inv.json);
  EXPECT_FALSE(inv.progress);
  EXPECT_EQ(inv.targets, std::vector<std::string>{"/dev/loop3"});
}

TEST(RawioCommandLine, OneIdPerTargetAndTargetsAfterOptions) {
  auto p = parse({"-a", "-i", "a", "-i", "b", "x", "y"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_EQ(p.invocation.ids, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.invocation.targets, (std::vector<std::string>{"x", "y"}));
  p = parse({"-a", "--id", "a,b", "x", "y"});
  EXPECT_EQ(p.invocation.ids, (std::vector<std::string>{"a", "b"}));
}

TEST(RawioCommandLine, BadValuesGiveOneLineNamingTheProblem) {
  struct Case {
    std::vector<const char*> args;
    const char* expect;
  };
  const Case cases[] = {
      {{"-a", "-n", "12q", "f"}, "-n/--size"},
      {{"-a", "-n", "0", "f"}, "empty"},
      {{"-a", "-s", "0", "f"}, "--transfer-size"},
      {{"-a", "-s", "2g", "f"}, "--transfer-size"},
      {{"-a", "-t", "0", "f"}, "--time"},
      {{"-a", "-t", "soon", "f"}, "--time"},
      {{"-a", "-v", "4", "f"}, "verbose"},
      {{"-a", "-p", "0", "f"}, "workers"},
      {{"-a", "-q", "0", "f"}, "iodepth"},
      {{"-a", "--submit-batch", "0", "f"}, "submit-batch"},
      {{"-a", "-c", "0", "f"}, "count"},
      {{"-a", "-e", "posixaio", "f"}, "unknown engine 'posixaio'"},
      {{"-a", "-d", "maybe", "f"}, "--direct"},
      {{"-a", "--frobnicate", "f"}, "frobnicate"},
      {{"-a"}, "targets"},
      {{"f"}, "no test selected"},
      {{"-a", "-i", "a", "x", "y"}, "one id for 2 targets"},
      {{"-a", "-i", "a,b,c", "x", "y"}, "3 ids for 2 targets"},
      // Found by the bad-input sweep (src/tools/rawio_bad_input_test.cc).
      {{"-a", "-n", "", "f"}, "-n/--size"},
      {{"-a", "-s", "", "f"}, "-s/--transfer-size"},
      {{"-a", "-c", "99999999999999999999", "f"}, "-c/--count"},
      {{"-a", "--seed", "-1", "f"}, "--seed"},
      {{"-a", "--seed", "99999999999999999999", "f"}, "--seed"},
      {{"-a", "--seed", "", "f"}, "--seed"},
      {{"-R", "-R", "f"}, "given 2 times"},
      {{"-a", "--json", "--json", "f"}, "--json: given 2 times"},
      {{"-a", "--json=1", "f"}, "--json takes no value (given '--json=1')"},
      {{"-a", "-i", "", "f"}, "must not be empty"},
      {{"-a", "--size=", "f"}, "--size: no value after '='"},
      {{"-a", "--save", "--db", "", "f"}, "--db: the database path is empty"},
      {{"-R", "--rate", "0", "f"}, "--rate: '0' is not a number of transfers per second above 0"},
      {{"-R", "--rate", "0/s", "f"}, "--rate: '0/s' is not"},
      {{"-R", "--rate", "abc", "f"}, "--rate: 'abc' is not"},
      {{"-R", "--rate", "-5/s", "f"}, "--rate: '-5/s' is not"},
      {{"-R", "--rate", "2000/min", "f"}, "--rate: '2000/min' is not"},
      {{"-R", "--rate", "2e9", "f"}, "--rate: '2e9' is not"},
      {{"-R", "--rate", "", "f"}, "--rate"},
      {{"-R", "--rate", "10/s", "--arrival", "foo", "f"},
       "--arrival: 'foo' is not fixed or poisson"},
      {{"-R", "--arrival", "poisson", "f"}, "--arrival: needs --rate"},
  };
  for (const auto& c : cases) {
    auto p = parse(c.args);
    EXPECT_EQ(p.action, ParsedCommandLine::Action::kUsageError) << c.expect;
    EXPECT_NE(p.text.find(c.expect), std::string::npos) << c.expect << " not in: " << p.text;
    EXPECT_EQ(p.text.find('\n'), std::string::npos) << p.text;
  }
}

TEST(RawioCommandLine, HelpWinsOverBadValues) {
  auto p = parse({"-p", "0", "-n", "x", "--help"});
  EXPECT_EQ(p.action, ParsedCommandLine::Action::kPrintAndExit) << p.text;
  p = parse({"-a", "--", "-h"});  // after "--" it is a target's name
  EXPECT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
}

TEST(RawioCommandLine, HelpAndVersionPrintAndExit) {
  auto p = parse({"--help"});
  EXPECT_EQ(p.action, ParsedCommandLine::Action::kPrintAndExit);
  for (const char* option : {"--random-read",
                             "--sequential-read",
                             "--random-write",
                             "--sequential-write",
                             "--all",
                             "--verbose",
                             "--id",
                             "--size",
                             "--transfer-size",
                             "--workers",
                             "--iodepth",
                             "--submit-batch",
                             "--count",
                             "--time",
                             "--warmup",
                             "--units",
                             "--seed",
                             "--engine",
                             "--direct",
                             "--force-write",
                             "--json",
                             "--save",
                             "--db",
                             "rawio report"}) {
    EXPECT_NE(p.text.find(option), std::string::npos) << option;
  }
  p = parse({"--version"});
  EXPECT_EQ(p.action, ParsedCommandLine::Action::kPrintAndExit);
  EXPECT_NE(p.text.find("rawio"), std::string::npos);
}

TEST(RawioCommandLine, SaveAndDb) {
  auto p = parse({"-R", "--save", "--db", "/tmp/h.db", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_TRUE(p.invocation.save);
  EXPECT_EQ(p.invocation.db_path, "/tmp/h.db");
  p = parse({"-R", "--save", "f"});
  EXPECT_TRUE(p.invocation.save);
  EXPECT_TRUE(p.invocation.db_path.empty());
  EXPECT_FALSE(parse({"-R", "f"}).invocation.save);
  p = parse({"-R", "--db", "/tmp/h.db", "f"});
  EXPECT_EQ(p.action, ParsedCommandLine::Action::kUsageError);
  EXPECT_NE(p.text.find("--save"), std::string::npos) << p.text;
}

TEST(RawioCommandLine, OptionsEchoForJson) {
  auto p = parse({"-R", "-W", "-n", "1m", "-e", "null", "f"});
  auto j = options_json(p.invocation);
  EXPECT_EQ(j["tests"], (nlohmann::json{"RR", "RW"}));
  EXPECT_EQ(j["area_bytes"], 1048576);
  EXPECT_TRUE(j["transfer_count"].is_null());
  EXPECT_EQ(j["engine"], "null");
  EXPECT_EQ(j["time_based"], true);
  EXPECT_EQ(j["time_limit_ns"], 5'000'000'000);
  EXPECT_EQ(j["warmup_ns"], 1'000'000'000);
  j = options_json(parse({"-R", "-c", "pass", "f"}).invocation);
  EXPECT_EQ(j["time_based"], false);
  EXPECT_EQ(j["transfer_count"], "pass");
  EXPECT_EQ(j["warmup_ns"], 0);
}

TEST(RawioCommandLine, UnitsChooseTheRateColumns) {
  EXPECT_EQ(parse({"-R", "f"}).invocation.units, Units::kKib);
  auto p = parse({"-R", "--units", "iops", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_EQ(p.invocation.units, Units::kIops);
  EXPECT_EQ(options_json(p.invocation)["units"], "iops");
  p = parse({"-R", "--units", "MB", "f"});
  EXPECT_EQ(p.action, ParsedCommandLine::Action::kUsageError);
  EXPECT_EQ(p.text, "--units: 'MB' is not kib, mib or iops");
}

TEST(RawioCommandLine, CountBasedRunsOnRequest) {
  auto p = parse({"-R", "-c", "500", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_TRUE(p.invocation.count_based);
  EXPECT_EQ(p.invocation.transfer_count, 500u);
  EXPECT_EQ(p.invocation.time_limit_ns, 10'000'000'000);  // the count's cap, as before
  EXPECT_EQ(p.invocation.warmup_ns, 0);
  p = parse({"-R", "-c", "pass", "-t", "2s", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_TRUE(p.invocation.count_based);
  EXPECT_FALSE(p.invocation.transfer_count.has_value());  // one pass over the area
  EXPECT_EQ(p.invocation.time_limit_ns, 2'000'000'000);
  p = parse({"-R", "--warmup", "250ms", "-t", "2s", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_EQ(p.invocation.warmup_ns, 250'000'000);
  EXPECT_EQ(p.invocation.time_limit_ns, 2'000'000'000);
  EXPECT_EQ(parse({"-R", "--warmup", "0", "f"}).invocation.warmup_ns, 0);
  p = parse({"-R", "-c", "5", "--warmup", "1s", "f"});
  EXPECT_EQ(p.action, ParsedCommandLine::Action::kUsageError);
  EXPECT_NE(p.text.find("--warmup"), std::string::npos) << p.text;
}

TEST(RawioCommandLine, RateAndArrivalAskForAnOpenLoop) {
  auto p = parse({"-R", "f"});
  EXPECT_EQ(p.invocation.rate_per_sec, 0);  // closed loop stays the default
  EXPECT_TRUE(options_json(p.invocation)["rate_per_sec"].is_null());
  EXPECT_TRUE(options_json(p.invocation)["arrival"].is_null());
  p = parse({"-R", "--rate", "2000/s", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_EQ(p.invocation.rate_per_sec, 2000);
  EXPECT_EQ(p.invocation.arrival, Arrival::kFixed);
  EXPECT_EQ(options_json(p.invocation)["arrival"], "fixed");
  p = parse({"-R", "--rate", "0.5", "--arrival", "poisson", "--seed", "9", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_EQ(p.invocation.rate_per_sec, 0.5);
  EXPECT_EQ(p.invocation.arrival, Arrival::kPoisson);
  auto j = options_json(p.invocation);
  EXPECT_EQ(j["rate_per_sec"], 0.5);
  EXPECT_EQ(j["arrival"], "poisson");
  EXPECT_EQ(j["seed"], 9);
  p = parse({"-R", "--rate=1000000000/s", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_EQ(p.invocation.rate_per_sec, 1e9);
  EXPECT_NE(parse({"--help"}).text.find("IN TOTAL over all workers"), std::string::npos);
}

}  // namespace
}  // namespace diskcond::rawio

namespace diskcond::rawio {
namespace {

TEST(RawioCommandLine, SteadyStateAndItsCompanions) {
  auto p = parse({"-R", "--steady-state", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_TRUE(p.invocation.steady_state);
  EXPECT_EQ(p.invocation.ss_window_ns, 0);  // chosen from the first second
  EXPECT_EQ(p.invocation.ss_max_rounds, 25u);
  EXPECT_EQ(p.invocation.precondition_passes, 0u);  // a read test: nothing is written
  p = parse({"-W", "--steady-state", "--ss-window", "30s", "--ss-rounds", "10", "f"});
  ASSERT_EQ(p.action, ParsedCommandLine::Action::kRun) << p.text;
  EXPECT_EQ(p.invocation.ss_window_ns, 30'000'000'000);
  EXPECT_EQ(p.invocation.ss_max_rounds, 10u);
  EXPECT_EQ(p.invocation.precondition_passes, 2u);  // SNIA's two passes, with a write test
  EXPECT_EQ(
      parse({"-W", "--steady-state", "--precondition", "0", "f"}).invocation.precondition_passes,
      0u);
  EXPECT_EQ(parse({"-R", "--precondition", "1", "f"}).invocation.precondition_passes, 1u);
  auto j = options_json(parse({"-R", "--steady-state", "--ss-window", "2s", "f"}).invocation);
  EXPECT_EQ(j["steady_state"], true);
  EXPECT_EQ(j["ss_window_ns"], 2'000'000'000);
  EXPECT_EQ(j["ss_max_rounds"], 25);

  EXPECT_EQ(parse({"-R", "--ss-window", "2s", "f"}).text, "--ss-window: needs --steady-state");
  EXPECT_EQ(parse({"-R", "--ss-rounds", "9", "f"}).text, "--ss-rounds: needs --steady-state");
  EXPECT_EQ(parse({"-R", "--steady-state", "-c", "100", "f"}).text,
            "--steady-state: runs until steady, not for a count; leave out -c");
  EXPECT_EQ(parse({"-R", "--steady-state", "-t", "5s", "f"}).action,
            ParsedCommandLine::Action::kUsageError);
  EXPECT_EQ(parse({"-R", "--steady-state", "--ss-window", "1.5s", "f"}).text,
            "--ss-window: '1.5s' is not a whole number of seconds from 1s to 1h");
  EXPECT_EQ(parse({"-R", "--steady-state", "--ss-rounds", "4", "f"}).action,
            ParsedCommandLine::Action::kUsageError);
  // Given empty is given: an error, not the default (the bad-input sweep found it accepted).
  EXPECT_EQ(parse({"-R", "--steady-state", "--ss-window", "", "f"}).text,
            "--ss-window: invalid time '' (examples: 100us, 5ms, 8s)");
  EXPECT_EQ(parse({"-R", "--ss-window", "", "f"}).text, "--ss-window: needs --steady-state");
}

TEST(RawioCommandLine, Repeat) {
  EXPECT_EQ(parse({"-R", "--repeat", "3", "f"}).invocation.repeat, 3u);
  EXPECT_EQ(parse({"-R", "f"}).invocation.repeat, 1u);
  EXPECT_EQ(parse({"-R", "--repeat", "0", "f"}).action, ParsedCommandLine::Action::kUsageError);
}

}  // namespace
}  // namespace diskcond::rawio
