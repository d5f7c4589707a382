// Runs the built rawio binary end to end for the figures issue 16 asked for: steady state,
// preconditioning, the honesty checks, per-worker rows and the latency log.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "rawio/test_util.h"

namespace diskcond::rawio {
namespace {

using testing::Outcome;
using testing::rawio;

const char* kNull = " --no-progress -n 2m -s 4k -p 2 -e null ";

TEST(RawioStatsBinary, SteadyStateSaysWhetherAndWhenItWasReached) {
  testing::ScratchDir dir;
  Outcome r = rawio("-R --steady-state --ss-window 1s --ss-rounds 6 --warmup 0 --json" +
                    std::string(kNull) + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& t = doc["targets"][0]["tests"][0];
  const auto& s = t["steady_state"];
  EXPECT_EQ(s["window_ns"], 1'000'000'000);
  EXPECT_EQ(s["max_rounds"], 6);
  // Whatever this machine did: stopped when steady, or after the rounds allowed, never both.
  if (s["reached"] == true) {
    EXPECT_EQ(t["stopped_by"], "steady_state") << t;
    EXPECT_GE(s["reached_round"].get<int>(), 5);
    EXPECT_LE(s["window_range_fraction"].get<double>(), 0.2);
  } else {
    EXPECT_TRUE(s["reached_round"].is_null());
  }
  r = rawio("-R --steady-state --ss-window 1s --ss-rounds 5 --warmup 0" + std::string(kNull) +
            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nSteady state anon RR: (reached after 5 rounds of 1.00 s \\(5.00 s\\); "
                        "rounds 1-5|NOT reached in [0-9]+ rounds of 1.00 s \\(at most 5\\))")))
      << r.out;
}

TEST(RawioStatsBinary, PreconditionWritesTheAreaFirstAndSaysSo) {
  testing::ScratchDir dir;
  Outcome r =
      rawio("-W --precondition 1 -t 200ms --warmup 0 --no-progress -n 2m -s 4k -p 2 " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("rawio: preconditioned anon: 1 pass of 131072-byte sequential writes "
                        "over 2097152 bytes in [0-9.]+ s\n")))
      << r.err;
}

}  // namespace
}  // namespace diskcond::rawio

namespace diskcond::rawio {
namespace {

TEST(RawioStatsBinary, VerifyReadsBackWhatTheWriteTestsWrote) {
  testing::ScratchDir dir;
  Outcome r =
      rawio("-W -w --verify -t 200ms --warmup 0 --no-progress -n 2m -s 4k -p 2 " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nVerified anon RW: [0-9]+ transfers read back, all as written \\(")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nVerified anon SW: [0-9]+ transfers")))
      << r.out;
  Outcome reads = rawio("-R --verify " + dir.path());
  EXPECT_EQ(reads.exit_code, 2);
  EXPECT_EQ(reads.err, "rawio: --verify: checks what write tests wrote; select -W or -w\n");
}

TEST(RawioStatsBinary, LatencyLogAndPerWorkerRows) {
  testing::ScratchDir dir;
  const std::string log = dir.file("lat.csv");
  Outcome r = rawio("-R -v 3 --latency-log " + log + kNull + " -c 100 " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nRR +anon +0 +50 +50.0%"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nRR +anon +1 +50 +50.0%"))) << r.out;
  EXPECT_NE(r.out.find("Fairness anon RR: workers did 50 to 50 transfers (even share 50); "
                       "most/least 1.00\n"),
            std::string::npos)
      << r.out;
  std::string csv = testing::slurp(log);
  EXPECT_EQ(csv.substr(0, csv.find('\n') + 1),
            "id,test,worker,intended_ns,issue_ns,complete_ns,latency_ns,offset,bytes\n");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 101);  // the header and 100 transfers
  EXPECT_TRUE(std::regex_search(csv, std::regex("\nanon,RR,1,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9]+,"
                                                "4096\n")))
      << csv.substr(0, 300);
  Outcome bad = rawio("-R --latency-log /nonexistent/dir/x.csv" + std::string(kNull) + dir.path());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("rawio: --latency-log: cannot create /nonexistent/dir/x.csv: "),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace diskcond::rawio
