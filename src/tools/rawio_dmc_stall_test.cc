// Issue 16, "Measured and tested": a stall of the whole pretend device, injected into a real dmc
// mount while rawio reads from it, shows in open-loop p99.9 and not in closed-loop p99.9.
//
// Closed loop (the default), one worker at QD1: the worker has one transfer in flight when the
// device stops; it waits the stall out and is the only transfer that sees it, so one sample of
// thousands carries the stall: the maximum, above p99.9 (coordinated omission). Open loop
// (--rate): the transfers due during the stall are still due, each measured from when it was due,
// so every one of them waits part of the stall: a sixth of all samples wait over half of it.
//
// Setup: profile 7 (PCIe 3 SSD: 3 us access, 3 GB/s; replies go out at once, so the measurement
// is the FUSE round trip and no reply waits for a timer), random 4 KiB reads of a 64 MiB file,
// 0.2 s warm-up, 3 s measured; `dmc fault add <mount> stall=1s at=1500ms` just before rawio
// starts puts the stall about 1.3 s into the measured time (rawio may start up to 1.3 s late and
// the stall still falls inside). Open loop asks 1000/s, well under what the mount serves at QD1
// (2,500-5,500/s measured), so the backlog of the stall is caught up in a fraction of a second.
//
// Margins measured (2026-12-01, seven runs on the 2-vCPU VM shared with two other builds, load
// average 9.8-12.3): closed loop 7,700-71,000 transfers in 3 s (p99.9 needs more than 1,000 to
// leave one stalled transfer above it), p99.9 0.8-28 ms against the 250 ms bound (9x), max 998-1018
// ms; open loop achieved 999-1110/s, p99.9 997-1055 ms against the 500 ms bound (2x; about 500 of
// 3,000 samples waited over 500 ms, against the 3 that p99.9 needs).
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/rawio_on_dmc_support.h"

namespace diskcond::tools {
namespace {

constexpr double kStallNs = 1e9;

class RawioStallOnDmc : public RawioOnDmc {
 protected:
  // rawio -R with `extra` on the mount's file while a 1 s stall is injected 1.5 s after the rule
  // is added; the test's JSON object. Checks that exactly one stall began, and removes the rule.
  nlohmann::json read_through_a_stall(const std::vector<std::string>& extra) {
    ProgramRun added = dmc({"fault", "add", cond(), "stall=1s", "at=1500ms"});
    EXPECT_EQ(added.code, 0) << added.err;
    std::vector<std::string> args = {"-R", "-s", "4k",       "-p",    "1",  "-n", "64m",
                                     "-t", "3s", "--warmup", "200ms", "-d", "on"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(data());
    nlohmann::json doc = rawio_json(args);
    ProgramRun listed = dmc({"fault", "list", cond(), "-json"});
    EXPECT_EQ(listed.code, 0) << listed.err;
    auto rules = nlohmann::json::parse(listed.out, nullptr, false);
    EXPECT_FALSE(rules.is_discarded()) << listed.out;
    if (!rules.is_discarded()) {
      EXPECT_EQ(rules.at("rules").size(), 1u);
      EXPECT_EQ(rules.at("rules").at(0).at("injected_faults"), 1) << "the stall began once";
    }
    EXPECT_EQ(dmc({"fault", "clear", cond()}).code, 0);
    return doc.is_null() ? doc : only_test(doc);
  }
};

TEST_F(RawioStallOnDmc, AStallShowsInOpenLoopP999AndNotInClosedLoop) {
  start("7");
  const nlohmann::json closed = read_through_a_stall({});
  const nlohmann::json open = read_through_a_stall({"--rate", "1000/s"});
  ASSERT_FALSE(closed.is_null());
  ASSERT_FALSE(open.is_null());
  ASSERT_TRUE(closed.at("direct_io").get<bool>()) << "O_DIRECT: every read reaches the mount";

  const auto& closed_lat = closed.at("lat_ns");
  const double closed_max = closed_lat.at("max").get<double>();
  const double closed_p999 = closed_lat.at("p99_9").get<double>();
  const uint64_t closed_transfers = closed.at("transfers").get<uint64_t>();
  EXPECT_GE(closed_max, 0.9 * kStallNs)
      << "the stall fell inside the measured time: the transfer in flight waited it out";
  EXPECT_GT(closed_transfers, 2000u)
      << "enough transfers that p99.9 leaves the one stalled transfer above it";
  EXPECT_LT(closed_p999, 0.25 * kStallNs)
      << "closed loop hides the stall in p99.9 (" << closed_transfers << " transfers, max "
      << closed_max / 1e6 << " ms)";

  const double open_p999 = open.at("lat_ns").at("p99_9").get<double>();
  EXPECT_GE(open_p999, 0.5 * kStallNs)
      << "open loop shows the stall in p99.9 (" << open.at("transfers") << " transfers)";
  ASSERT_TRUE(open.at("open_loop").is_object());
  const double achieved = open.at("open_loop").at("achieved_rate_per_sec").get<double>();
  EXPECT_GT(achieved, 900.0) << "the backlog of the stall was caught up";
  EXPECT_LT(achieved, 1200.0);
  std::printf(
      "measured: closed loop %llu transfers, p99.9 %.1f ms, max %.1f ms; open loop %s "
      "transfers, p99.9 %.1f ms, achieved %.0f/s\n",
      static_cast<unsigned long long>(closed_transfers), closed_p999 / 1e6, closed_max / 1e6,
      open.at("transfers").dump().c_str(), open_p999 / 1e6, achieved);
}

}  // namespace
}  // namespace diskcond::tools
