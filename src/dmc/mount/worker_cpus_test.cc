#include "dmc/mount/worker_cpus.h"

#include <gtest/gtest.h>

#include <thread>

namespace diskcond::mount {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr uint64_t kCpu0 = 1, kCpu1 = 2, kCpu2 = 4, kCpu3 = 8;

std::array<uint64_t, WorkerCpus::kMaxCpus> deep(std::initializer_list<uint64_t> by_cpu) {
  std::array<uint64_t, WorkerCpus::kMaxCpus> d{};
  int c = 0;
  for (uint64_t n : by_cpu) d[c++] = n;
  return d;
}

// Sends `count` requests from `cpu` with `waiting` replies waiting, spread over [from, to).
void send(WorkerCpus& w, int cpu, int waiting, int count, int64_t from, int64_t to) {
  for (int i = 0; i < count; ++i) w.note(cpu, waiting, 0, from + (to - from) * i / count);
}

TEST(MountWorkerCpus, WorkersLeaveTheCpusThatSendADeepQueue) {
  const uint64_t four = kCpu0 | kCpu1 | kCpu2 | kCpu3;
  EXPECT_EQ(WorkerCpus::decide(four, deep({0, 1000, 0, 0})), kCpu0 | kCpu2 | kCpu3);
  // Two deep callers: both CPUs are left. A CPU that sent under a tenth of them is not a caller's.
  EXPECT_EQ(WorkerCpus::decide(four, deep({0, 600, 500, 99})), kCpu0 | kCpu3);
  EXPECT_EQ(WorkerCpus::decide(four, deep({0, 600, 500, 110})), kCpu0 | kCpu3);
  EXPECT_EQ(WorkerCpus::decide(four, deep({0, 600, 500, 125})), kCpu0);
}

TEST(MountWorkerCpus, TooFewDeepRequestsOrCallersEverywhereLeaveEveryCpu) {
  const uint64_t two = kCpu0 | kCpu1;
  EXPECT_EQ(WorkerCpus::decide(two, deep({0, WorkerCpus::kMinDeepRequests - 1})), two);
  EXPECT_EQ(WorkerCpus::decide(two, deep({0, WorkerCpus::kMinDeepRequests})), kCpu0);
  EXPECT_EQ(WorkerCpus::decide(two, deep({700, 800})), two);
  // Requests from a CPU the daemon may not use count for nothing.
  EXPECT_EQ(WorkerCpus::decide(two, deep({0, 0, 5000})), two);
}

TEST(MountWorkerCpus, RepliesTheDaemonPacedKeepEveryCpu) {
  const uint64_t two = kCpu0 | kCpu1;
  EXPECT_EQ(WorkerCpus::decide(two, deep({0, 3000}), {.replies = 3000, .backing_bound = 1499}),
            kCpu0);
  EXPECT_EQ(WorkerCpus::decide(two, deep({0, 3000}), {.replies = 3000, .backing_bound = 1500}),
            two);
  // Counted by window: what earlier windows were bound by does not count.
  ReplyTotals totals{.replies = 100'000, .backing_bound = 100'000};
  WorkerCpus w({true, true}, [&totals] { return totals; });
  totals.replies += 3000;
  totals.backing_bound += 100;
  send(w, 1, WorkerCpus::kDeepWaiting, 3000, 0, 50 * kMs);
  w.note(-1, 0, 0, 51 * kMs);
  EXPECT_EQ(w.mask(), kCpu0);
  totals.replies += 3000;
  totals.backing_bound += 2900;
  // Queued in the kernel for a worker (the handover), not waiting in the reply scheduler.
  for (int i = 0; i < 3000; ++i) w.note(1, 0, WorkerCpus::kDeepHandoverNs, 52 * kMs + i * 10'000);
  w.note(-1, 0, 0, 102 * kMs);
  EXPECT_EQ(w.mask(), kCpu0 | kCpu1);
}

TEST(MountWorkerCpus, AWindowDecidesForTheNextAndOnlyDeepRequestsCount) {
  WorkerCpus w({true, true});
  ASSERT_TRUE(w.enabled());
  EXPECT_EQ(w.mask(), kCpu0 | kCpu1);
  // A caller at queue depth 1 on CPU 1: nothing waits, the workers stay everywhere.
  send(w, 1, 0, 5000, 0, 60 * kMs);
  EXPECT_EQ(w.mask(), kCpu0 | kCpu1);
  EXPECT_EQ(w.changes(), 0u);
  // A deep queue from CPU 1: decided when the window it filled ends.
  send(w, 1, WorkerCpus::kDeepWaiting, 1000, 60 * kMs, 100 * kMs);
  EXPECT_EQ(w.mask(), kCpu0 | kCpu1);
  w.note(-1, 0, 0, 111 * kMs);
  EXPECT_EQ(w.mask(), kCpu0);
  EXPECT_TRUE(w.narrowed());
  EXPECT_EQ(w.changes(), 1u);
  // The caller has gone: a window without deep requests gives the workers every CPU again.
  w.note(-1, 0, 0, 170 * kMs);
  EXPECT_EQ(w.mask(), kCpu0 | kCpu1);
  EXPECT_EQ(w.changes(), 2u);
}

TEST(MountWorkerCpus, OneCpuOrCpusBeyondTheTrackedOnesTurnItOff) {
  WorkerCpus one({true});
  EXPECT_FALSE(one.enabled());
  std::vector<bool> many(WorkerCpus::kMaxCpus + 1, true);
  WorkerCpus wide(many);
  EXPECT_FALSE(wide.enabled());
  send(wide, 1, WorkerCpus::kDeepWaiting, 5000, 0, 200 * kMs);
  EXPECT_EQ(wide.changes(), 0u);
}

TEST(MountWorkerCpus, ApplyingMovesTheThreadAndLeavesItWhenNothingChanged) {
  const std::vector<bool> mine = affinity_cpus();
  ASSERT_FALSE(mine.empty());
  WorkerCpus w(mine);
  if (!w.enabled()) GTEST_SKIP() << "fewer than two CPUs here";
  int sender = -1;
  for (size_t c = 0; c < mine.size() && sender < 0; ++c) {
    if (mine[c]) sender = static_cast<int>(c);
  }
  send(w, sender, WorkerCpus::kDeepWaiting, 1000, 0, 60 * kMs);
  w.note(-1, 0, 0, 61 * kMs);
  ASSERT_TRUE(w.narrowed());
  std::vector<bool> moved;
  std::thread([&] {
    apply_worker_cpus(w);
    moved = affinity_cpus();
  }).join();
  ASSERT_EQ(moved.size(), mine.size());
  EXPECT_FALSE(moved[sender]);
  for (size_t c = 0; c < mine.size(); ++c) {
    if (static_cast<int>(c) != sender) {
      EXPECT_EQ(moved[c], mine[c]) << "cpu " << c;
    }
  }
}

}  // namespace
}  // namespace diskcond::mount
