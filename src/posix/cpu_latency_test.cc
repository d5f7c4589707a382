#include "posix/cpu_latency.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace diskcond::posix {
namespace {

TEST(CpuLatency, ARequestHoldsWhileItsDescriptorIsOpen) {
  const int64_t before = current_cpu_latency_limit_us();
  if (before == -EACCES || before == -EPERM || before == -ENOENT)
    GTEST_SKIP() << kCpuLatencyDevice << " cannot be used here (needs root)";
  ASSERT_GE(before, 0);
  {
    UniqueFd held(request_cpu_latency(0));
    ASSERT_TRUE(held.valid()) << "request_cpu_latency: " << -held.get();
    EXPECT_EQ(current_cpu_latency_limit_us(), 0);
  }
  // Withdrawn with the descriptor: back to what others asked for before (none: 2e9 us).
  EXPECT_EQ(current_cpu_latency_limit_us(), before);
}

}  // namespace
}  // namespace diskcond::posix
