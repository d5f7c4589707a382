// Integration: the daemon's own worker loop (worker_loop.h) under a deep queue of large writes,
// and its end on a signal.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "dmc/mount/buffer_pool.h"
#include "dmc/mount/mount_test_support.h"
#include "dmc/mount/worker_loop.h"

namespace diskcond::mount::testing {
namespace {

using MountWorkerLoop = MountTest;

// A line of /proc/<pid>/smaps_rollup, in KiB ("AnonHugePages"); -1 when missing.
long smaps_kib(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/smaps_rollup");
  const std::string prefix = key + ":";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) return std::stol(line.substr(prefix.size()));
  }
  return -1;
}

// The /proc/<pid>/task/<tid> directories of the threads named `wanted`.
std::vector<std::filesystem::path> threads_named(pid_t pid, const std::string& wanted) {
  std::vector<std::filesystem::path> out;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    if (name == wanted) out.push_back(task.path());
  }
  return out;
}

constexpr size_t kMiB = size_t{1} << 20;

// `writers` threads at once, each writing `mib` 1 MiB O_DIRECT writes of 'a' + its number to file
// "f<number>" in `dir`. Returns each writer's failed writes (or 1 when it could not start).
std::vector<int> write_in_parallel(const std::string& dir, int writers, int mib) {
  std::vector<std::thread> threads;
  std::vector<int> failures(writers, 0);
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      const std::string file = dir + "/f" + std::to_string(w);
      const int fd = open(file.c_str(), O_CREAT | O_WRONLY | O_DIRECT, 0644);
      void* data = nullptr;
      if (fd < 0 || posix_memalign(&data, 4096, kMiB) != 0) {
        failures[w] = 1;
        if (fd >= 0) close(fd);
        return;
      }
      std::memset(data, 'a' + w, kMiB);
      for (int i = 0; i < mib; ++i) {
        if (pwrite(fd, data, kMiB, static_cast<off_t>(i * kMiB)) != static_cast<ssize_t>(kMiB)) {
          ++failures[w];
        }
      }
      std::free(data);
      close(fd);
    });
  }
  for (auto& t : threads) t.join();
  return failures;
}

// Sixteen writers of 1 MiB O_DIRECT writes at once: the loop starts workers for them, every write
// lands, and only the core workers' receive buffers (at most ReceiveBuffers::kMaxBuffers, shared
// by CPU) and the reply pool's few take huge pages, so that a deep queue does not cost 2 MiB per
// worker.
TEST_F(MountWorkerLoop, ADeepQueueOfLargeWritesStartsWorkersWithBoundedHugePages) {
  start(ssd_profile(0));
  const pid_t pid = control_->status(dir_)->daemon_pid;
  constexpr int kWriters = 16;
  const std::vector<int> failures = write_in_parallel(dir_, kWriters, 8);
  for (int w = 0; w < kWriters; ++w) {
    EXPECT_EQ(failures[w], 0) << "writer " << w;
    std::ifstream in(path("f" + std::to_string(w)), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(text.size(), 8 * kMiB) << "writer " << w;
    EXPECT_EQ(text.find_first_not_of(static_cast<char>('a' + w)), std::string::npos) << w;
  }
  EXPECT_GT(threads_named(pid, "dmc-fuse").size(), 1u);
  const long huge_kib = smaps_kib(pid, "AnonHugePages");
  ASSERT_GE(huge_kib, 0);
  const long bound_kib =
      static_cast<long>((ReceiveBuffers::kMaxBuffers + BufferPool::kMaxHugeBuffers) *
                        (BufferPool::kHugePageBytes / 1024));
  EXPECT_LE(huge_kib, bound_kib);
}

// Voluntary context switches of each thread named `wanted`, by thread id.
std::map<std::string, long> switches_of_threads_named(pid_t pid, const std::string& wanted) {
  std::map<std::string, long> out;
  for (const auto& task : threads_named(pid, wanted)) {
    std::ifstream status(task / "status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) {
        out[task.filename()] = std::stol(line.substr(line.find(':') + 1));
      }
    }
  }
  return out;
}

// After a deep queue has started more than kCoreWorkers workers, a queue-depth-1 caller is served
// by the core workers alone: the spares park rather than take turns (the kernel hands a request
// to the reader that has waited longest), so its requests keep to a few warm workers with huge
// buffers. A worker that served a request blocked again after it (a voluntary switch); a parked
// or idle one did not. A spare still in its read may take one late turn before it parks (on the
// 2-core VM of 2026-12-06, 1-6 spares did so in the 400 reads after the warm-up, in 28 of 41
// runs), so the reads go in rounds of 100 until one round is served by the core workers alone, at
// most ten. Fails with DISKCOND_PARK_SPARES=off: every round goes round every worker.
TEST_F(MountWorkerLoop, AfterADeepQueueOnlyTheCoreWorkersServeQueueDepthOne) {
  start(ssd_profile(0));
  const pid_t pid = control_->status(dir_)->daemon_pid;
  write_in_parallel(dir_, 32, 4);
  const int workers = static_cast<int>(threads_named(pid, "dmc-fuse").size());
  ASSERT_GT(workers, static_cast<int>(kCoreWorkers)) << "the deep queue started no spares";

  const int fd = open(path("f0").c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(fd, 0);
  void* data = nullptr;
  ASSERT_EQ(posix_memalign(&data, 4096, 4096), 0);
  auto read_qd1 = [&](int n) {
    for (int i = 0; i < n; ++i) ASSERT_EQ(pread(fd, data, 4096, (i % 256) * 4096), 4096);
  };
  read_qd1(4 * workers);  // each spare still in its read takes its last turn and parks
  std::string rounds;
  int served = 0;
  for (int round = 0; round < 10; ++round) {
    const auto before = switches_of_threads_named(pid, "dmc-fuse");
    read_qd1(100);
    const auto after = switches_of_threads_named(pid, "dmc-fuse");
    served = 0;
    for (const auto& [tid, n] : after) {
      auto it = before.find(tid);
      served += it == before.end() || n > it->second;
    }
    rounds += std::to_string(served) + " ";
    if (served <= static_cast<int>(kCoreWorkers)) break;
  }
  close(fd);
  std::free(data);
  EXPECT_LE(served, static_cast<int>(kCoreWorkers))
      << "of " << workers << " workers; served per round: " << rounds;
  EXPECT_GE(served, 1);
}

// SIGTERM (fuse_set_signal_handlers) ends the loop wherever the signal lands: the daemon unmounts
// the directory and exits.
TEST_F(MountWorkerLoop, SigtermUnmountsAndEndsTheDaemon) {
  start(ssd_profile(0));
  std::ofstream(path("f")) << "x";  // workers have started and wait in their reads
  const pid_t pid = control_->status(dir_)->daemon_pid;
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    gone = text.empty() || text.find(") Z") != std::string::npos;
    if (!gone) usleep(10'000);
  }
  EXPECT_TRUE(gone) << "the daemon still runs 5 s after SIGTERM";
  EXPECT_FALSE(is_conditioned_mount(dir_));
}

}  // namespace
}  // namespace diskcond::mount::testing
