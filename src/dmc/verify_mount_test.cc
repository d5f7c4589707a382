// dmc verify against a real conditioned mount: what the model predicts is what rawio measures.
#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>

#include "core/units.h"
#include "dmc/mount/mount_test_support.h"
#include "dmc/verify.h"

namespace diskcond {
namespace {

using mount::testing::MountTest;

class MountVerify : public MountTest {};

TEST_F(MountVerify, ConditionedMountMeetsThePredictions) {
  // Slow enough that the mount's own floor is far below it: 1 ms access, 20 MiB/s, depth 4.
  Profile profile = mount::testing::ssd_profile(20, 1000, 4);
  start(profile);
  struct statvfs fs {};
  ASSERT_EQ(::statvfs(dir_.c_str(), &fs), 0);
  VerifyPlan plan;
  plan.seconds_per_test_ns = 2 * kNsPerSec;
  plan.min_file_bytes = 16 * kMiB;
  const auto& all = standard_workloads();
  plan.workloads = {all[1], all[4], all[5]};  // SEQ1M Q32 read, RND4K Q1 read, RND4K QD read
  // Never faster than predicted (2% for the measurement's own granularity); up to 25% slower,
  // not verify's 5%, and one more try: CI machines are shared and these runs are short. A mount
  // that ignores the model, or doubles it, misses by far more, twice.
  auto within = [](const VerifyCheck& c) { return c.error <= 0.02 && c.error >= -0.25; };
  auto checks = verify_directory(dir_, profile, uint64_t{fs.f_blocks} * fs.f_frsize, plan, nullptr);
  ASSERT_TRUE(checks.ok()) << checks.error();
  if (!std::all_of(checks->begin(), checks->end(), within)) {
    checks = verify_directory(dir_, profile, uint64_t{fs.f_blocks} * fs.f_frsize, plan, nullptr);
    ASSERT_TRUE(checks.ok()) << checks.error();
  }
  for (const VerifyCheck& c : *checks) {
    EXPECT_TRUE(within(c)) << c.label << ": predicted " << c.predicted.iops << " IOPS, measured "
                           << c.measured_iops;
  }
}

}  // namespace
}  // namespace diskcond
