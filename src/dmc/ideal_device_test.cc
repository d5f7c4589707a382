#include "dmc/ideal_device.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "posix/cpu_latency.h"

namespace diskcond::dmc {
namespace {

// The device completes each request exactly its service time after the issue, so no wait is
// shorter; waking the caller adds to it, so the rate is never more than 1 / service.
TEST(IdealDevice, NoWaitIsShorterThanTheServiceTime) {
  auto run = run_ideal_device(100'000, 200);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->service_ns, 100'000);
  EXPECT_EQ(run->requests, 200u);
  EXPECT_GE(run->min_wait_ns, 100'000);
  EXPECT_GE(run->mean_wait_ns, static_cast<double>(run->min_wait_ns));
  EXPECT_GE(run->p50_wait_ns, run->min_wait_ns);
  EXPECT_GE(run->p90_wait_ns, run->p50_wait_ns);
  EXPECT_LE(run->iops(), 10'000.0);
  EXPECT_GT(run->iops(), 0.0);
}

// Asked to, it holds idle CPUs polling where this process may (root), as a busy mount does; a
// wait is still never shorter than the service time.
TEST(IdealDevice, IdleCpusPollWhenAskedAndAllowed) {
  // Allowed: root, and a cpuidle driver that a request can keep from halting idle CPUs.
  const bool allowed =
      access(posix::kCpuLatencyDevice, W_OK) == 0 && posix::cpuidle_driver_present();
  auto run = run_ideal_device(100'000, 200, /*idle_poll=*/true);
  ASSERT_TRUE(run.ok()) << run.error();
  EXPECT_EQ(run->idle_poll_held, allowed);
  EXPECT_GE(run->min_wait_ns, 100'000);
  auto plain = run_ideal_device(100'000, 10);
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_FALSE(plain->idle_poll_held);
}

// Asked to, the caller pins a buffer of the request's size before each request, and that time
// is part of its wait; a buffer larger than a pipe holds is pinned in pieces.
TEST(IdealDevice, PinningTheCallersBufferIsPartOfEveryWait) {
  for (const uint64_t bytes : {uint64_t{1} << 20, uint64_t{3} << 20}) {
    auto run = run_ideal_device(100'000, 200, /*idle_poll=*/false, bytes);
    ASSERT_TRUE(run.ok()) << run.error();
    EXPECT_EQ(run->pinned_bytes, bytes);
    EXPECT_GT(run->mean_pin_ns, 0.0);
    EXPECT_GE(run->mean_wait_ns, 100'000 + run->mean_pin_ns);
    EXPECT_GT(run->min_wait_ns, 100'000);
  }
  auto plain = run_ideal_device(100'000, 10);
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_EQ(plain->pinned_bytes, 0u);
  EXPECT_EQ(plain->mean_pin_ns, 0.0);
}

TEST(IdealDevice, RequestsFillTheBudgetWithinLimits) {
  EXPECT_EQ(ideal_device_requests(115'600, 1'000'000'000), 8650u);    // Slow SSD 4 KiB: 1 s
  EXPECT_EQ(ideal_device_requests(20'000'000, 1'000'000'000), 200u);  // 1 MiB on an HDD
  EXPECT_EQ(ideal_device_requests(1'000, 1'000'000'000), 20'000u);
  EXPECT_EQ(ideal_device_requests(0, 1'000'000'000), 20'000u);
}

}  // namespace
}  // namespace diskcond::dmc
