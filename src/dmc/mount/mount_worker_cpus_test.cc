// Integration: the FUSE workers leave the CPU a deep-queue caller sends from, and come back when
// it has gone (worker_cpus.h). Needs fio with io_uring, two CPUs and the kernel's send stamps
// (root, a kernel with BTF); skips otherwise.
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "dmc/mount/mount_test_support.h"
#include "dmc/mount/worker_cpus.h"

namespace diskcond::mount::testing {
namespace {

using MountDeepQueueCpus = MountTest;

uint64_t allowed_mask() {
  const std::vector<bool> cpus = affinity_cpus();
  uint64_t mask = 0;
  for (size_t c = 0; c < cpus.size() && c < WorkerCpus::kMaxCpus; ++c) {
    if (cpus[c]) mask |= uint64_t{1} << c;
  }
  return mask;
}

TEST_F(MountDeepQueueCpus, WorkersLeaveADeepQueuesCpuAndComeBackWhenItEnds) {
  if (std::system("fio --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no fio";
  const uint64_t allowed = allowed_mask();
  if (__builtin_popcountll(allowed) < 2) GTEST_SKIP() << "fewer than two CPUs";
  const int caller_cpu = __builtin_ctzll(allowed);
  // SATA II SSD's speeds: a 4 KiB read at queue depth 32 waits about 450 us, 69k IOPS.
  start(ssd_profile(270, 60));
  const std::string file = path("deep.dat");
  ASSERT_EQ(std::system(("head -c 64M /dev/zero > " + file).c_str()), 0);
  auto diagnostics = [&] {
    auto status = control_->status(dir_);
    EXPECT_TRUE(status.ok()) << status.error();
    return status.ok() ? status->diagnostics : MountDiagnostics{};
  };
  const std::string fio = "taskset -c " + std::to_string(caller_cpu) +
                          " fio --name=deep --filename=" + file +
                          " --rw=randread --bs=4k --direct=1 --ioengine=io_uring --iodepth=32 "
                          "--time_based --runtime=1500ms --output=/dev/null";
  // Sampled while fio runs: a window (50 ms) that a busy machine disturbs may give the workers
  // every CPU back for the next; some sample must show them off the caller's.
  std::atomic<bool> done{false};
  int fio_status = -1;
  std::thread caller([&] {
    fio_status = std::system(fio.c_str());
    done = true;
  });
  const uint64_t narrowed = allowed & ~(uint64_t{1} << caller_cpu);
  int samples = 0, narrowed_samples = 0;
  MountDiagnostics d;
  while (!done) {
    usleep(50'000);
    d = diagnostics();
    ++samples;
    if (d.worker_cpu_mask == narrowed) ++narrowed_samples;
    EXPECT_TRUE(d.worker_cpu_mask == narrowed || d.worker_cpu_mask == allowed)
        << "mask " << d.worker_cpu_mask;
  }
  caller.join();
  ASSERT_EQ(fio_status, 0);
  if (d.kernel_arrivals == 0) GTEST_SKIP() << "no send stamps: the caller's CPU is not known";
  EXPECT_GT(narrowed_samples, 0) << "of " << samples << "; changes " << d.worker_cpu_changes;
  // A caller at queue depth 1 from the same CPU, past a whole window: every CPU again.
  const std::string qd1 = "taskset -c " + std::to_string(caller_cpu) +
                          " fio --name=qd1 --filename=" + file +
                          " --rw=randread --bs=4k --direct=1 --ioengine=psync --time_based "
                          "--runtime=300ms --output=/dev/null";
  ASSERT_EQ(std::system(qd1.c_str()), 0);
  d = diagnostics();
  EXPECT_EQ(d.worker_cpu_mask, allowed);
}

}  // namespace
}  // namespace diskcond::mount::testing
