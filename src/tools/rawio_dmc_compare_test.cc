// Issue 16, "Measured and tested": rawio compare on runs of a real dmc mount made slower with
// `dmc configure` says "slower" and exits 4; the other way round, "faster" and 0. The counts the
// issue asks for (19 of 20 seeded trials, a 10% slowdown) come from bench/compare_power.sh; this
// is the same path once, on a slowdown too large for load to hide.
//
// Setup: `dmc configure <mount> SSD 0 40 40` (40 MiB/s, no access time), 16 psync workers reading
// 64 KiB at random, 0.5 s warm-up, 6 s measured (6 seconds a side: complete separation gave
// p = 0.0013-0.0018 and a change of -40.0% in two runs at load average 12, against the 0.01
// alpha); then 24 MiB/s, 40% slower. Sixteen commands queued keep the pretend device busy, so the
// model's rate holds whatever the machine's load does to each reply's wake-up: measured
// (2026-12-01, load average 12) 634-651 transfers a second at 40 MiB/s against the model's 640,
// where 4 workers gave 380-636 and one worker at QD1 of a 1 ms profile 11-457. A 40% gap leaves
// load no room to flip the verdict.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/rawio_on_dmc_support.h"

namespace diskcond::tools {
namespace {

using RawioCompareOnDmc = RawioOnDmc;

TEST_F(RawioCompareOnDmc, AMountMadeFortyPercentSlowerIsSlowerAndExitsFour) {
  start("7");
  auto measure = [&](const std::string& mib_per_sec, const std::string& id) {
    ProgramRun configured = dmc({"configure", cond(), "SSD", "0", mib_per_sec, mib_per_sec});
    ASSERT_EQ(configured.code, 0) << configured.err;
    ProgramRun run = rawio({"-R", "-s", "64k", "-p", "16", "-n", "64m", "-t", "6s", "--warmup",
                            "500ms", "-d", "on", "--no-progress", "-i", id, "--save", data()});
    ASSERT_EQ(run.code, 0) << run.err;
  };
  measure("40", "base");
  measure("24", "slow");

  auto compare = [&](const std::string& a, const std::string& b, int code) {
    ProgramRun run = rawio({"compare", "--json", a, b});
    EXPECT_EQ(run.code, code) << a << " " << b << ": " << run.err;
    auto doc = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << run.out;
    return doc.is_discarded() ? nlohmann::json() : doc;
  };
  const nlohmann::json slower = compare("base", "slow", 4);
  ASSERT_FALSE(slower.is_null());
  ASSERT_EQ(slower.at("tests").size(), 1u);
  const auto& test = slower.at("tests").at(0);
  EXPECT_EQ(test.at("verdict"), "slower") << test.dump();
  EXPECT_TRUE(test.at("regression").get<bool>());
  EXPECT_EQ(test.at("a").at("samples").size(), 6u) << "one sample per whole second";
  const double change = test.at("change").get<double>();
  EXPECT_LT(change, -0.30) << "the model's 40% (" << change << ")";
  EXPECT_GT(change, -0.50);

  std::printf("measured: change %.1f%%, p %.2g\n", 100 * change, test.at("p").get<double>());

  const nlohmann::json faster = compare("slow", "base", 0);
  ASSERT_FALSE(faster.is_null());
  EXPECT_EQ(faster.at("tests").at(0).at("verdict"), "faster");
  EXPECT_FALSE(faster.at("regression").get<bool>());
}

}  // namespace
}  // namespace diskcond::tools
