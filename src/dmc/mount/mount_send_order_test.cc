// Integration: on an HDD profile the pieces of large O_DIRECT reads and writes reach the model in
// the order the kernel sent them (send_order.h), where two workers used to let one overtake the
// other (fio 4 MiB QD1 reads on 7200 HDD: 33-69 of about 800 commands overtaken, 129-139 MiB/s
// for 150). Only a wait that ran out may let one through (or a piece the kernel sent more than
// SendOrder::kWindowNs after the one before it: with a 1 ms window this test failed 1 run in 6
// after the mount tests before it, the kernel having sent a write's piece 1.4-1.7 ms late).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

constexpr size_t kFileBytes = 16 * kMiB;
constexpr size_t kPieceBytes = 4 * kMiB;  // four requests of 1 MiB each
constexpr int kPasses = 4;                // 16 commands per pass, about 0.1 s each on 7200 HDD
// A wait that runs out lets its request reach the model before the requests sent ahead of it that
// have not: within one of this test's commands, at most the kPieceBytes / 1 MiB - 1 before it
// (every earlier command's requests were charged before its replies went): three, when the
// workers of a write's first three pieces are all more than a wait late and the last piece's wait
// runs out. The full test binary once had 3 overtaken for 1 wait run out, and failed on a bound of
// one per wait (the cause of those workers' 10 ms is not known).
constexpr uint64_t kOvertakenPerTimeout = kPieceBytes / kMiB - 1;
// Overtaken commands allowed beyond those. This test had 2 or 3 with none run out in 1 run in 12
// to 1 in 107 with two CPU hogs beside it: a worker preempted
// between its two clock readings put a piece's send up to 95 us late, after the next piece's
// (session_io.cc, now converted exactly). With that fixed, 0 in 120 runs beside the hogs; one
// stays allowed as a margin. Without the send order, 64 such reads had 2-13 (6 runs).
constexpr uint64_t kUnexplained = 1;

class MountSendOrder : public MountTest {
 protected:
  void SetUp() override {
    MountTest::SetUp();
    if (IsSkipped()) return;
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) GTEST_SKIP() << "the kernel has no BTF";
    FILE* f = fopen(path("f").c_str(), "w");  // before the mount: straight to the backing file
    ASSERT_NE(f, nullptr);
    const std::vector<char> block(kMiB, 'a');
    for (size_t i = 0; i < kFileBytes / kMiB; ++i) fwrite(block.data(), 1, block.size(), f);
    fclose(f);
  }

  // kPasses passes over the file in kPieceBytes O_DIRECT reads or writes, then the diagnostics.
  MountDiagnostics pass_and_report(bool write) {
    const int fd = open(path("f").c_str(), (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
    EXPECT_GE(fd, 0);
    void* buf = nullptr;
    EXPECT_EQ(posix_memalign(&buf, 4096, kPieceBytes), 0);
    for (int pass = 0; pass < kPasses; ++pass) {
      for (size_t offset = 0; offset < kFileBytes; offset += kPieceBytes) {
        const ssize_t n = write ? pwrite(fd, buf, kPieceBytes, static_cast<off_t>(offset))
                                : pread(fd, buf, kPieceBytes, static_cast<off_t>(offset));
        EXPECT_EQ(n, static_cast<ssize_t>(kPieceBytes));
      }
    }
    free(buf);
    close(fd);
    auto status = control_->status(dir_);
    EXPECT_TRUE(status.ok()) << status.error();
    const MountDiagnostics d = status.ok() ? status->diagnostics : MountDiagnostics{};
    std::printf("  %s: %llu overtaken, %llu waits (%llu ran out, %.1f us each), %llu unstamped\n",
                write ? "writes" : "reads",
                static_cast<unsigned long long>(d.model_overtaken_commands),
                static_cast<unsigned long long>(d.send_order_waits),
                static_cast<unsigned long long>(d.send_order_timeouts),
                static_cast<double>(d.send_order_waited_ns) / 1e3 /
                    static_cast<double>(d.send_order_waits > 0 ? d.send_order_waits : 1),
                static_cast<unsigned long long>(d.kernel_arrival_misses));
    return d;
  }
};

TEST_F(MountSendOrder, LargeDirectReadsAndWritesReachAnHddInTheKernelsOrder) {
  start(builtin_profiles()[2]);  // 7200 HDD
  const MountDiagnostics reads = pass_and_report(false);
  if (reads.kernel_arrivals == 0) GTEST_SKIP() << "no send stamps (the BPF program did not load)";
  EXPECT_LE(reads.model_overtaken_commands,
            kOvertakenPerTimeout * reads.send_order_timeouts + kUnexplained);
  const MountDiagnostics both = pass_and_report(true);
  EXPECT_LE(both.model_overtaken_commands,
            kOvertakenPerTimeout * both.send_order_timeouts + kUnexplained);
  EXPECT_EQ(both.lateness_early_replies, 0u);
}

TEST_F(MountSendOrder, OffLetsRequestsReachTheModelAsTheirWorkersGo) {
  setenv("DISKCOND_SEND_ORDER", "off", 1);
  start(builtin_profiles()[2]);
  unsetenv("DISKCOND_SEND_ORDER");
  const MountDiagnostics d = pass_and_report(false);
  EXPECT_EQ(d.send_order_waits, 0u);
  EXPECT_EQ(d.send_order_waited_ns, 0);
}

}  // namespace
}  // namespace diskcond::mount::testing
