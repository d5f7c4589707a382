#include "rawio/formatter.h"

#include <gtest/gtest.h>

#include <vector>

namespace diskcond::rawio {
namespace {

// A result over 10 s whose rates come out as the given K/sec (1024 bytes) and transfers/sec.
// The seed's /sec is not exactly its K/sec / 16 (its timing differed per process), so both are
// set separately to reproduce its lines verbatim.
RunResult fixed_result(TestKind kind, double kib_per_sec, uint64_t per_sec, double user_pct,
                       double sys_pct) {
  RunResult r;
  r.spec.kind = kind;
  r.spec.transfer_bytes = 16384;
  r.elapsed_ns = 10'000'000'000;
  r.bytes = static_cast<uint64_t>(kib_per_sec * 1024.0 * 10.0 + 0.5);
  r.transfers = per_sec * 10;
  r.cpu.user_ns = static_cast<int64_t>(user_pct / 100.0 * 1e10);
  r.cpu.sys_ns = static_cast<int64_t>(sys_pct / 100.0 * 1e10);
  r.engine = "psync";
  return r;
}

struct SeedRow {
  double kib_per_sec;
  uint64_t per_sec;
};

TargetReport seed_report(SeedRow rr, SeedRow sr, SeedRow rw, SeedRow sw) {
  TargetReport report;
  report.id = "anon";
  report.target = "/dev/da2s1e";
  report.kind = "block_device";
  report.tests = {fixed_result(TestKind::kRandomRead, rr.kib_per_sec, rr.per_sec, 0.1, 7.2),
                  fixed_result(TestKind::kSequentialRead, sr.kib_per_sec, sr.per_sec, 0.9, 90.0),
                  fixed_result(TestKind::kRandomWrite, rw.kib_per_sec, rw.per_sec, 0.2, 13.1),
                  fixed_result(TestKind::kSequentialWrite, sw.kib_per_sec, sw.per_sec, 0.2, 27.8)};
  return report;
}

// The seed's runs: its plain disk (`rawio -a /dev/rda1s1e`), its vinum volume (`rawio -a -v 1
// /dev/vinum/test`) and `rawio -a -v 1 /dev/da2s1e`.
TargetReport seed_rda1s1e() {
  return seed_report({874.8, 54}, {2683.1, 164}, {868.0, 54}, {1380.3, 84});
}
TargetReport seed_vinum() {
  return seed_report({480.8, 30}, {5001.7, 305}, {478.2, 29}, {1244.2, 76});
}
TargetReport seed_da2s1e() {
  return seed_report({271.0, 17}, {5290.5, 323}, {514.1, 32}, {1454.7, 89});
}

TEST(RawioTextFormat, DefaultTableMatchesTheSeed) {
  // The seed's `rawio -a /dev/rda1s1e`. /sec is computed from the transfers (K/sec / 16 here).
  std::vector<TargetReport> reports = {seed_rda1s1e()};
  EXPECT_EQ(make_text_formatter(0)->render(reports),
            "            Random read  Sequential read    Random write Sequential write\n"
            "ID          K/sec  /sec    K/sec  /sec     K/sec  /sec     K/sec  /sec\n"
            "anon        874.8    54   2683.1   164     868.0    54    1380.3    84\n"
            "Measured anon: RR 10.00 s, SR 10.00 s, RW 10.00 s, SW 10.00 s\n");
}

TEST(RawioTextFormat, VerboseRowsMatchTheSeed) {
  // The seed's `rawio -a -v 1 /dev/da2s1e`.
  std::vector<TargetReport> reports = {seed_da2s1e()};
  EXPECT_EQ(make_text_formatter(1)->render(reports),
            "Test    ID        K/sec    /sec %User  %Sys %Total\n"
            "RR      anon      271.0      17   0.1   7.2    7.3  16384\n"
            "SR      anon     5290.5     323   0.9  90.0   90.9  16384\n"
            "RW      anon      514.1      32   0.2  13.1   13.3  16384\n"
            "SW      anon     1454.7      89   0.2  27.8   28.0  16384\n"
            "Measured anon: RR 10.00 s, SR 10.00 s, RW 10.00 s, SW 10.00 s\n");
}

TEST(RawioTextFormat, UnitsOfferMibPerSecondAndIops) {
  std::vector<TargetReport> reports = {seed_rda1s1e()};
  EXPECT_EQ(format_summary_table(reports, Units::kMib),
            "            Random read  Sequential read    Random write Sequential write\n"
            "ID        MiB/sec  IOPS  MiB/sec  IOPS   MiB/sec  IOPS   MiB/sec  IOPS\n"
            "anon         0.85    54     2.62   164      0.85    54      1.35    84\n");
  EXPECT_EQ(format_summary_table(reports, Units::kIops),
            "            Random read  Sequential read    Random write Sequential write\n"
            "ID                 IOPS           IOPS            IOPS            IOPS\n"
            "anon               54.0          164.0            54.0            84.0\n");
  reports[0].tests.resize(1);
  EXPECT_EQ(format_test_rows(reports, Units::kMib),
            "Test    ID      MiB/sec    IOPS %User  %Sys %Total\n"
            "RR      anon       0.85      54   0.1   7.2    7.3  16384\n");
  EXPECT_EQ(format_test_rows(reports, Units::kIops),
            "Test    ID         IOPS %User  %Sys %Total\n"
            "RR      anon       54.0   0.1   7.2    7.3  16384\n");
  EXPECT_EQ(make_text_formatter(0, Units::kKib)->render(reports),
            make_text_formatter(0)->render(reports));
  EXPECT_EQ(parse_units("mib"), Units::kMib);
  EXPECT_FALSE(parse_units("MiB").has_value());
}

TEST(RawioTextFormat, EachTargetSaysHowLongItsTestsRanAndAfterWhatWarmUp) {
  std::vector<TargetReport> reports = {seed_rda1s1e(), seed_vinum()};
  reports[1].id = "vinum";
  for (auto& t : reports[0].tests) t.spec.warmup_ns = 1'000'000'000;
  reports[0].tests[1].elapsed_ns = 5'003'000'000;
  reports[1].tests[2].elapsed_ns = 34'120'000;
  EXPECT_EQ(
      format_measured_time(reports),
      "Measured anon: RR 10.00 s, SR 5.00 s, RW 10.00 s, SW 10.00 s, each after a 1.0 s warm-up\n"
      "Measured vinum: RR 10.00 s, SR 10.00 s, RW 0.0341 s, SW 10.00 s\n");
}

TEST(RawioTextFormat, AnInterruptedRunIsMarkedPartialInTextAndJson) {
  TargetReport report = seed_rda1s1e();
  report.tests.resize(2);
  report.tests[1].stopped_by = StopReason::kCancelled;
  report.tests[1].elapsed_ns = 2'310'000'000;
  std::vector<TargetReport> reports = {report};
  std::string text = make_text_formatter(0)->render(reports);
  EXPECT_NE(text.find("Measured anon: RR 10.00 s, SR 2.31 s (interrupted)\n"
                      "PARTIAL: interrupted during SR on anon; the figures are those up to then\n"),
            std::string::npos)
      << text;
  auto doc = nlohmann::json::parse(make_json_formatter({})->render(reports));
  EXPECT_EQ(doc["partial"], true);
  EXPECT_EQ(doc["targets"][0]["tests"][1]["stopped_by"], "cancelled");
  reports[0].tests[1].stopped_by = StopReason::kTimeLimit;
  EXPECT_EQ(nlohmann::json::parse(make_json_formatter({})->render(reports))["partial"], false);
  EXPECT_EQ(make_text_formatter(1)->render(reports).find("PARTIAL"), std::string::npos);
}

TEST(RawioTextFormat, SeveralTargetsGiveOneRowEach) {
  std::vector<TargetReport> reports = {seed_rda1s1e(), seed_vinum()};
  reports[0].id = "rda1s1e";
  reports[1].id = "vinum";
  std::string out = format_summary_table(reports);
  EXPECT_NE(out.find("\nrda1s1e     874.8    54   2683.1   164"), std::string::npos) << out;
  EXPECT_NE(out.find("\nvinum       480.8    30   5001.7   305"), std::string::npos) << out;
}

TEST(RawioTextFormat, OnlyTheTestsRunGetColumns) {
  TargetReport report = seed_rda1s1e();
  report.tests.erase(report.tests.begin() + 1, report.tests.end());
  std::vector<TargetReport> reports = {report};
  EXPECT_EQ(format_summary_table(reports),
            "            Random read\n"
            "ID          K/sec  /sec\n"
            "anon        874.8    54\n");
}

TEST(RawioTextFormat, WideValuesStillHaveASpace) {
  TargetReport report = seed_report({12345678.9, 771605}, {1, 1}, {1, 1}, {1, 1});
  report.id = "a-very-long-id";
  std::vector<TargetReport> reports = {report};
  std::string out = format_summary_table(reports);
  EXPECT_NE(out.find("a-very-long-id  12345678.9 771605"), std::string::npos) << out;
}

// Issue 13, item 12: K/sec of a RAM-backed target (>= 1,000,000) widens its column, header and
// title too, in every table; the other columns keep the seed's widths.
TEST(RawioTextFormat, WideValuesWidenTheirColumnsSoColumnsStayAligned) {
  std::vector<TargetReport> reports = {
      seed_rda1s1e(), seed_report({480.8, 30}, {1234567.8, 1234567}, {478.2, 29}, {1244.2, 76})};
  reports[1].id = "ram";
  EXPECT_EQ(format_summary_table(reports),
            "            Random read     Sequential read    Random write Sequential write\n"
            "ID          K/sec  /sec     K/sec    /sec     K/sec  /sec     K/sec  /sec\n"
            "anon        874.8    54    2683.1     164     868.0    54    1380.3    84\n"
            "ram         480.8    30 1234567.8 1234567     478.2    29    1244.2    76\n");
  reports[1].tests.resize(2);
  EXPECT_EQ(format_test_rows(reports),
            "Test    ID         K/sec    /sec %User  %Sys %Total\n"
            "RR      anon       874.8      54   0.1   7.2    7.3  16384\n"
            "SR      anon      2683.1     164   0.9  90.0   90.9  16384\n"
            "RW      anon       868.0      54   0.2  13.1   13.3  16384\n"
            "SW      anon      1380.3      84   0.2  27.8   28.0  16384\n"
            "RR      ram        480.8      30   0.1   7.2    7.3  16384\n"
            "SR      ram    1234567.8 1234567   0.9  90.0   90.9  16384\n");
  reports.resize(1);
  reports[0].tests.resize(1);
  reports[0].tests[0].latency.record(123'456'789'000'000);  // 123456.789 s (a stuck transfer)
  EXPECT_EQ(
      format_latency_rows(reports),
      "Test    ID             p50 us         p90 us         p99 us       p99.9 us         max us\n"
      "RR      anon   123456789000.0 123456789000.0 123456789000.0 123456789000.0 "
      "123456789000.0\n");
}

TEST(RawioTextFormat, LongIdsWidenTheIdColumnSoColumnsStayAligned) {
  std::vector<TargetReport> reports = {seed_rda1s1e(), seed_vinum()};
  reports[1].id = "plain#12";
  reports[1].tests.resize(1);
  EXPECT_EQ(format_test_rows(reports),
            "Test    ID           K/sec    /sec %User  %Sys %Total\n"
            "RR      anon         874.8      54   0.1   7.2    7.3  16384\n"
            "SR      anon        2683.1     164   0.9  90.0   90.9  16384\n"
            "RW      anon         868.0      54   0.2  13.1   13.3  16384\n"
            "SW      anon        1380.3      84   0.2  27.8   28.0  16384\n"
            "RR      plain#12     480.8      30   0.1   7.2    7.3  16384\n");
  reports[1].id = "plain#123";
  EXPECT_EQ(format_summary_table(reports),
            "              Random read  Sequential read    Random write Sequential write\n"
            "ID            K/sec  /sec    K/sec  /sec     K/sec  /sec     K/sec  /sec\n"
            "anon          874.8    54   2683.1   164     868.0    54    1380.3    84\n"
            "plain#123     480.8    30        -     -         -     -         -     -\n");
}

TEST(RawioTextFormat, VerbosityTwoAddsLatencyPercentiles) {
  std::vector<TargetReport> reports = {seed_da2s1e()};
  for (uint64_t v = 1; v <= 1000; ++v) reports[0].tests[0].latency.record(v * 1000);  // 1..1000 us
  std::string out = make_text_formatter(2)->render(reports);
  EXPECT_EQ(out.substr(0, format_test_rows(reports).size()), format_test_rows(reports));
  EXPECT_NE(out.find("Test    ID        p50 us    p90 us    p99 us  p99.9 us    max us\n"),
            std::string::npos)
      << out;
  // Bucket midpoints within 0.05% of the exact 500, 900, 990, 999 us; the max is exact.
  EXPECT_NE(out.find("RR      anon       500.1     899.8     990.0     999.2    1000.0\n"),
            std::string::npos)
      << out;
}

TEST(RawioJsonFormat, OneDocumentWithUnitsInKeysAndOptionsEchoed) {
  std::vector<TargetReport> reports = {seed_da2s1e()};
  reports[0].tests[0].latency.record(1500);
  reports[0].tests[0].intervals = {{16384, 1}, {32768, 2}};
  std::string text = make_json_formatter({{"engine", "psync"}, {"workers", 8}})->render(reports);
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["tool"], "rawio");
  EXPECT_EQ(doc["options"]["workers"], 8);
  const auto& rr = doc["targets"][0]["tests"][0];
  EXPECT_EQ(doc["targets"][0]["id"], "anon");
  EXPECT_EQ(rr["test"], "RR");
  EXPECT_EQ(rr["transfer_bytes"], 16384);
  EXPECT_EQ(rr["elapsed_ns"], 10'000'000'000);
  EXPECT_NEAR(rr["bw_bytes_per_sec"].get<double>(), 271.0 * 1024, 1.0);
  EXPECT_NEAR(rr["kib_per_sec"].get<double>(), 271.0, 0.01);
  EXPECT_EQ(rr["lat_ns"]["max"], 1500);
  EXPECT_EQ(rr["lat_ns"]["samples"], 1);
  EXPECT_NEAR(rr["cpu"]["total_percent"].get<double>(), 7.3, 1e-9);
  EXPECT_GT(rr["cpu"]["cpu_us_per_transfer"].get<double>(), 0.0);
  EXPECT_EQ(rr["intervals"]["samples"][1]["bytes"], 32768);
  EXPECT_EQ(doc["targets"][0]["tests"].size(), 4u);
}

TEST(RawioJsonFormat, HistogramsCarryTheirBucketsAndTheLayout) {
  std::vector<TargetReport> reports = {seed_da2s1e()};
  RunResult& rr = reports[0].tests[0];
  for (uint64_t v : {1500u, 1500u, 3'000'000u}) rr.latency.record(v);
  rr.intervals = {{16384, 1}, {32768, 2}};
  LatencyHistogram second;
  second.record(3'000'000);
  rr.interval_latency = {SparseHistogram{}, second.sparse()};
  auto doc = nlohmann::json::parse(make_json_formatter({})->render(reports));
  EXPECT_EQ(doc["schema_version"], 2);
  EXPECT_EQ(doc["histogram"]["scheme"], "log_linear");
  EXPECT_EQ(doc["histogram"]["sub_bucket_bits"], 10);
  EXPECT_EQ(doc["histogram"]["bucket_count"], 33792);
  const auto& t = doc["targets"][0]["tests"][0];
  EXPECT_EQ(t["lat_ns"]["sum"], 3'003'000);
  EXPECT_EQ(t["lat_ns"]["buckets"], nlohmann::json::parse("[[1500, 2], [12728, 1]]"));
  EXPECT_EQ(LatencyHistogram::bucket_index(3'000'000), 12728u);
  const auto& s = t["intervals"]["samples"];
  EXPECT_EQ(s[0]["lat_ns"]["samples"], 0);
  EXPECT_EQ(s[1]["lat_ns"]["samples"], 1);
  EXPECT_EQ(s[1]["lat_ns"]["max"], 3'000'000);
  EXPECT_EQ(s[1]["lat_ns"]["buckets"], nlohmann::json::parse("[[12728, 1]]"));
}

// An open-loop RR over 10 s at 2000/s requested, with known lag samples.
TargetReport open_loop_report() {
  std::vector<TargetReport> r = {seed_da2s1e()};
  RunResult& rr = r[0].tests[0];
  rr.spec.rate_per_sec = 2000;
  rr.spec.arrival = Arrival::kPoisson;
  rr.spec.seed = 7;
  rr.transfers = 19'950;  // 1995/s achieved
  for (int i = 0; i < 99; ++i) rr.schedule_lag.record(100'000);
  rr.schedule_lag.record(212'400'000);
  rr.service_latency.record(900'000);
  rr.behind_at_end_ns = 3'200'000;
  return r[0];
}

TEST(RawioTextFormat, OpenLoopTestsGetALineWithRatesAndLagAndTheTablesStayTheSeeds) {
  std::vector<TargetReport> reports = {open_loop_report()};
  std::string out = make_text_formatter(1)->render(reports);
  EXPECT_NE(out.find("Open loop anon RR: requested 2000/s poisson (seed 7), achieved 1995/s; issue "
                     "lag p99 0.1 ms, max 212.4 ms, 3.2 ms behind at the end\n"),
            std::string::npos)
      << out;
  // Only the open-loop test has the line, and the table above is unchanged.
  EXPECT_EQ(out.find("Open loop anon SR"), std::string::npos) << out;
  EXPECT_EQ(out.find("Open loop"), out.rfind("Open loop")) << out;
  EXPECT_EQ(out.substr(0, out.find("Measured")),
            format_test_rows(std::vector<TargetReport>{open_loop_report()}));
  std::vector<TargetReport> closed = {seed_da2s1e()};
  EXPECT_EQ(make_text_formatter(1)->render(closed).find("Open loop"), std::string::npos);
}

TEST(RawioJsonFormat, OpenLoopFiguresOrNullForClosedLoop) {
  std::vector<TargetReport> reports = {open_loop_report()};
  auto doc = nlohmann::json::parse(make_json_formatter({})->render(reports));
  const auto& rr = doc["targets"][0]["tests"][0];
  const auto& open = rr["open_loop"];
  EXPECT_EQ(open["arrival"], "poisson");
  EXPECT_EQ(open["seed"], 7);
  EXPECT_EQ(open["requested_rate_per_sec"], 2000.0);
  EXPECT_NEAR(open["achieved_rate_per_sec"].get<double>(), 1995.0, 1e-9);
  EXPECT_EQ(open["schedule_lag_ns"]["samples"], 100);
  EXPECT_EQ(open["schedule_lag_ns"]["max"], 212'400'000);
  EXPECT_NEAR(open["schedule_lag_ns"]["p99"].get<double>(), 100'000, 1000);
  EXPECT_EQ(open["behind_at_end_ns"], 3'200'000);
  EXPECT_EQ(open["service_lat_ns"]["max"], 900'000);
  EXPECT_TRUE(doc["targets"][0]["tests"][1].contains("open_loop"));
  EXPECT_TRUE(doc["targets"][0]["tests"][1]["open_loop"].is_null());  // SR ran closed loop
}

}  // namespace
}  // namespace diskcond::rawio

namespace diskcond::rawio {
namespace {

TEST(RawioTextFormat, SteadyStateLinesSayWhetherItWasReachedAndNeverOtherwise) {
  std::vector<TargetReport> reports = {seed_da2s1e()};
  std::vector<double> rounds = {50, 80, 100, 110, 95, 105, 100};
  SteadyState reached = detect_steady_state(rounds, {});
  reached.window_ns = 2'000'000'000;
  reached.max_rounds = 25;
  reports[0].tests[0].steady_state = reached;
  std::vector<double> climbing = {10, 20, 30, 40, 50, 60};
  SteadyState not_reached = detect_steady_state(climbing, {});
  not_reached.window_ns = 19'000'000'000;
  not_reached.max_rounds = 6;
  reports[0].tests[1].steady_state = not_reached;
  std::string out = make_text_formatter(0)->render(reports);
  EXPECT_NE(out.find("Steady state anon RR: reached after 7 rounds of 2.00 s (14.00 s); rounds "
                     "3-7: mean 102/s, range 14.7% (<= 20%), slope 2.0% (<= 10%)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Steady state anon SR: NOT reached in 6 rounds of 19.00 s (at most 6); last "
                     "5 rounds: mean 40/s, range 100.0% (> 20%), slope 100.0% (> 10%); these "
                     "are not steady-state figures\n"),
            std::string::npos)
      << out;
  // The tables are the seed's.
  EXPECT_EQ(out.substr(0, format_summary_table(reports).size()), format_summary_table(reports));
  auto doc = nlohmann::json::parse(make_json_formatter({})->render(reports));
  const auto& rr = doc["targets"][0]["tests"][0]["steady_state"];
  EXPECT_EQ(rr["reached"], true);
  EXPECT_EQ(rr["reached_round"], 7);
  EXPECT_EQ(rr["reached_at_ns"], 14'000'000'000);
  EXPECT_EQ(rr["rounds_per_sec"].size(), 7u);
  const auto& sr = doc["targets"][0]["tests"][1]["steady_state"];
  EXPECT_EQ(sr["reached"], false);
  EXPECT_TRUE(sr["reached_round"].is_null());
  EXPECT_TRUE(doc["targets"][0]["tests"][2]["steady_state"].is_null());
}

}  // namespace
}  // namespace diskcond::rawio
