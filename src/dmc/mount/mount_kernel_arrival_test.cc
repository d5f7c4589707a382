// Integration: a root mount's requests arrive at the kernel's send (send_stamps.h), and
// DISKCOND_KERNEL_ARRIVAL=off leaves them at the workers' reads. Whatever the arrival, no reply
// is early: MountNeverFaster checks that with the stamps on (the default).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

constexpr int kReads = 300;

class MountKernelArrival : public MountTest {
 protected:
  void SetUp() override {
    MountTest::SetUp();
    if (IsSkipped()) return;
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) GTEST_SKIP() << "the kernel has no BTF";
    FILE* f = fopen(path("f").c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::vector<char> block(kMiB, 'a');
    for (int i = 0; i < 4; ++i) fwrite(block.data(), 1, block.size(), f);
    fclose(f);
  }

  // kReads O_DIRECT 4 KiB reads through the mount, then its diagnostics.
  MountDiagnostics read_and_report() {
    const int fd = open(path("f").c_str(), O_RDONLY | O_DIRECT);
    EXPECT_GE(fd, 0);
    void* buf = nullptr;
    EXPECT_EQ(posix_memalign(&buf, 4096, 4096), 0);
    for (int i = 0; i < kReads; ++i) {
      EXPECT_EQ(pread(fd, buf, 4096, static_cast<off_t>(i % 1024) * 4096), 4096);
    }
    free(buf);
    close(fd);
    auto status = control_->status(dir_);
    EXPECT_TRUE(status.ok()) << status.error();
    return status.ok() ? status->diagnostics : MountDiagnostics{};
  }
};

TEST_F(MountKernelArrival, RequestsArriveAtTheKernelsSend) {
  start(builtin_profiles()[3]);
  const MountDiagnostics d = read_and_report();
  std::printf("  %llu stamped, %llu missed, hand-over mean %.1f us\n",
              static_cast<unsigned long long>(d.kernel_arrivals),
              static_cast<unsigned long long>(d.kernel_arrival_misses),
              static_cast<double>(d.handover_total_ns) / 1e3 /
                  static_cast<double>(d.kernel_arrivals > 0 ? d.kernel_arrivals : 1));
  EXPECT_GE(d.kernel_arrivals, static_cast<uint64_t>(kReads));  // and the open, the probes ...
  // Only requests sent before the program was attached (the INIT exchange) may be missed.
  EXPECT_LE(d.kernel_arrival_misses, 4u);
  // The send comes before the worker's read: every stamped request had a hand-over.
  EXPECT_GT(d.handover_total_ns, 0);
  EXPECT_EQ(d.lateness_early_replies, 0u);
}

TEST_F(MountKernelArrival, OffLeavesTheArrivalAtTheWorkersRead) {
  setenv("DISKCOND_KERNEL_ARRIVAL", "off", 1);
  start(builtin_profiles()[3]);
  unsetenv("DISKCOND_KERNEL_ARRIVAL");
  const MountDiagnostics d = read_and_report();
  EXPECT_EQ(d.kernel_arrivals, 0u);
  EXPECT_EQ(d.kernel_arrival_misses, 0u);
  EXPECT_EQ(d.handover_total_ns, 0);
}

}  // namespace
}  // namespace diskcond::mount::testing
