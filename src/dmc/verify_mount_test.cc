// dmc verify against a real conditioned mount: what the model predicts is what rawio measures.
#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>

#include "core/units.h"
#include "dmc/mount/mount_test_support.h"
#include "dmc/verify.h"

namespace diskcond::dmc {
namespace {

using mount::testing::MountTest;

class MountVerify : public MountTest {
 protected:
  // The mount's counters through status, as `dmc verify` reads them.
  BackingBoundProbe probe() {
    return [this]() -> Result<BackingBoundSample> {
      auto s = control_->status(dir_);
      if (!s.ok()) return make_error(s.error());
      return backing_bound_sample(*s);
    };
  }
  // A plan of `seconds_ns` per test over 16 MiB files (enough to spread the reads, quick to lay
  // out on the backing disk).
  static VerifyPlan mount_plan(int64_t seconds_ns, std::vector<NamedWorkload> workloads) {
    VerifyPlan plan;
    plan.seconds_per_test_ns = seconds_ns;
    plan.min_file_bytes = 16 * kMiB;
    plan.workloads = std::move(workloads);
    return plan;
  }
  // verify's file-size bound: the mount's size as statvfs reports it (0 when it fails).
  uint64_t capacity_bytes() const {
    struct statvfs fs {};
    return ::statvfs(dir_.c_str(), &fs) == 0 ? uint64_t{fs.f_blocks} * fs.f_frsize : 0;
  }
};

TEST_F(MountVerify, ConditionedMountMeetsThePredictions) {
  // Slow enough that the mount's own floor is far below it: 1 ms access, 20 MiB/s, depth 4.
  Profile profile = mount::testing::ssd_profile(20, 1000, 4);
  start(profile);
  const uint64_t capacity = capacity_bytes();
  ASSERT_GT(capacity, 0u);
  const auto& all = standard_workloads();
  // SEQ1M Q32 read, RND4K Q1 read, RND4K QD read
  VerifyPlan plan = mount_plan(2 * kNsPerSec, {all[1], all[4], all[5]});
  // Never faster than predicted (2% for the measurement's own granularity); up to 25% slower,
  // not verify's 5%, and one more try: CI machines are shared and these runs are short. A mount
  // that ignores the model, or doubles it, misses by far more, twice.
  auto within = [](const VerifyCheck& c) { return c.error <= 0.02 && c.error >= -0.25; };
  // On a machine so busy that callers wait for a CPU (mount::testing::CpuPressure), only "never
  // faster" is checked.
  // Nor when the daemon says the backing disk, not the model, timed most replies (verify's
  // "floor": the host's own disk was slow just then, which happens on a shared CI machine).
  mount::testing::CpuPressure pressure;
  auto checks = verify_directory(dir_, profile, capacity, plan, nullptr, probe());
  ASSERT_TRUE(checks.ok()) << checks.error();
  if (!std::all_of(checks->begin(), checks->end(), within)) {
    pressure = mount::testing::CpuPressure();
    checks = verify_directory(dir_, profile, capacity, plan, nullptr, probe());
    ASSERT_TRUE(checks.ok()) << checks.error();
  }
  const double busy = pressure.share();
  for (const VerifyCheck& c : *checks) {
    EXPECT_LE(c.error, 0.02) << c.label << ": predicted " << c.predicted.iops << " IOPS, measured "
                             << c.measured_iops;
    const double share = c.backing_bound_share.value_or(0);
    if (busy < mount::testing::CpuPressure::kBusy && c.verdict != Verdict::kFloor) {
      EXPECT_TRUE(within(c)) << c.label << ": predicted " << c.predicted.iops << " IOPS, measured "
                             << c.measured_iops << " (CPU pressure " << busy * 100
                             << "%, backing-bound replies " << share * 100 << "%)";
    } else if (!within(c)) {
      std::printf(
          "  %s: %.0f IOPS against %.0f predicted; CPU pressure %.0f%%, backing-bound "
          "replies %.0f%%: lower bound not checked\n",
          c.label.c_str(), c.measured_iops, c.predicted.iops, busy * 100, share * 100);
    }
  }
}

// A profile no machine meets (0.1 us access, 100,000 MiB/s): the backing file, not the model, times
// nearly every reply, and the daemon's backing-bound count says so. verify reads it through
// status only and calls the row the floor, not a failure.
TEST_F(MountVerify, ImpossibleProfileIsTheFloorByTheDaemonsCounters) {
  Profile profile = mount::testing::ssd_profile(100'000, 0.1, 32);
  start(profile);
  const uint64_t capacity = capacity_bytes();
  ASSERT_GT(capacity, 0u);
  VerifyPlan plan = mount_plan(1 * kNsPerSec, {standard_workloads()[4]});  // RND4K Q1 read
  plan.warmup_ns = 200 * kNsPerMs;
  auto checks = verify_directory(dir_, profile, capacity, plan, nullptr, probe());
  ASSERT_TRUE(checks.ok()) << checks.error();
  const VerifyCheck& c = (*checks)[0];
  EXPECT_LT(c.error, -plan.tolerance) << c.measured_iops << " IOPS against " << c.predicted.iops;
  ASSERT_TRUE(c.backing_bound_share.has_value());
  EXPECT_GE(*c.backing_bound_share, plan.floor_share);
  EXPECT_EQ(c.verdict, Verdict::kFloor);
  auto after = control_->status(dir_);
  ASSERT_TRUE(after.ok()) << after.error();
  EXPECT_EQ(after->settings.profile.access_time_ns, profile.access_time_ns);  // never switched
}

}  // namespace
}  // namespace diskcond::dmc
