// Integration: a conditioned mount keeps idle CPUs polling while its traffic flows and lets them
// halt again once it stops (idle_poll.h), as the kernel's own CPU latency limit shows.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "dmc/mount/idle_poll.h"
#include "dmc/mount/mount_test_support.h"
#include "posix/cpu_latency.h"

namespace diskcond::mount::testing {
namespace {

class MountIdlePoll : public MountTest {
 protected:
  void SetUp() override {
    MountTest::SetUp();
    if (IsSkipped()) return;
    before_ = posix::current_cpu_latency_limit_us();
    if (before_ < 0) GTEST_SKIP() << posix::kCpuLatencyDevice << " cannot be read here";
    if (const char* knob = std::getenv("DISKCOND_IDLE_POLL"); knob != nullptr)
      GTEST_SKIP() << "DISKCOND_IDLE_POLL is set";
    driver_ = posix::cpuidle_driver_present();
  }

  // 4 KiB O_DIRECT reads of a 1 MiB file made through the mount.
  void read_direct(int count) {
    const std::string f = path("f");
    {
      std::vector<char> data(1 << 20, 'x');
      const int fd = open(f.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
      ASSERT_EQ(fsync(fd), 0);
      close(fd);
    }
    const int fd = open(f.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    void* block = nullptr;
    ASSERT_EQ(posix_memalign(&block, 4096, 4096), 0);
    for (int i = 0; i < count; ++i) ASSERT_EQ(pread(fd, block, 4096, (i % 256) * 4096), 4096);
    free(block);
    close(fd);
  }

  MountDiagnostics diagnostics() {
    auto status = control_->status(dir_);
    EXPECT_TRUE(status.ok()) << status.error();
    return status.ok() ? status->diagnostics : MountDiagnostics{};
  }

  int64_t before_ = 0;   // the machine's limit before the mount (no request: 2,000,000,000 us)
  bool driver_ = false;  // a cpuidle driver is present: the request can make idle CPUs poll
};

TEST_F(MountIdlePoll, IdleCpusPollWhileTrafficFlowsAndHaltOnceItStops) {
  if (!driver_) GTEST_SKIP() << "no cpuidle driver here: idle CPUs halt whatever is asked";
  start(builtin_profiles()[3]);                  // Slow SSD
  EXPECT_EQ(diagnostics().idle_poll_state, 1u);  // ready: nothing flowed yet
  EXPECT_EQ(posix::current_cpu_latency_limit_us(), before_);

  read_direct(200);
  MountDiagnostics d = diagnostics();
  EXPECT_EQ(d.idle_poll_state, 2u);
  EXPECT_EQ(d.idle_poll_errno, 0u);
  EXPECT_GE(d.idle_poll_holds, 1u);
  EXPECT_EQ(posix::current_cpu_latency_limit_us(), 0);

  // Withdrawn about a second (IdlePoll::kLingerNs) after the last reply.
  for (int i = 0; i < 50 && diagnostics().idle_poll_state != 1; ++i) usleep(100 * 1000);
  d = diagnostics();
  EXPECT_EQ(d.idle_poll_state, 1u);
  EXPECT_GE(d.idle_poll_held_ns, IdlePoll::kLingerNs);
  EXPECT_EQ(posix::current_cpu_latency_limit_us(), before_);
}

// Conditioning off ("SSD 0 0 0") leaves the machine's idle policy alone: the mount is then what it
// would be without the model.
TEST_F(MountIdlePoll, ConditioningOffLeavesTheIdlePolicyAlone) {
  start(ssd_profile(0));
  read_direct(200);
  const MountDiagnostics d = diagnostics();
  EXPECT_EQ(d.idle_poll_state, driver_ ? 1u : 0u);  // 0: not available here (the test below)
  EXPECT_EQ(d.idle_poll_holds, 0u);
  EXPECT_EQ(posix::current_cpu_latency_limit_us(), before_);
}

// Without a cpuidle driver no request can keep idle CPUs polling: the mount takes none and its
// status says why.
TEST_F(MountIdlePoll, NoCpuidleDriverMeansNoRequestAndStatusSaysWhy) {
  if (driver_) GTEST_SKIP() << "a cpuidle driver is present here";
  start(builtin_profiles()[3]);  // Slow SSD
  read_direct(200);
  const MountDiagnostics d = diagnostics();
  EXPECT_EQ(d.idle_poll_state, 0u);
  EXPECT_EQ(d.idle_poll_errno, static_cast<uint64_t>(ENODEV));
  EXPECT_EQ(d.idle_poll_holds, 0u);
  EXPECT_EQ(posix::current_cpu_latency_limit_us(), before_);
}

}  // namespace
}  // namespace diskcond::mount::testing
