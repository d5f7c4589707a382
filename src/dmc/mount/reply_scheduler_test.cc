#include "dmc/mount/reply_scheduler.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace diskcond::mount {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(MountReplyScheduler, PastDueRepliesRunAtOnceOnTheCaller) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  bool ran = false;
  s.at(clock.now_ns() - 1, [&] { ran = true; });
  EXPECT_TRUE(ran);
}

TEST(MountReplyScheduler, RepliesAtTheirTimeInOrder) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  std::mutex mu;
  std::vector<std::pair<int, int64_t>> sent;
  const int64_t start = clock.now_ns();
  for (int i : {3, 1, 2}) {
    s.at(start + i * 20 * kMs, [&, i] {
      std::lock_guard lock(mu);
      sent.emplace_back(i, clock.now_ns() - start);
    });
  }
  while (s.queued() > 0 || [&] {
    std::lock_guard l(mu);
    return sent.size() < 3;
  }()) {
    timespec ts{0, kMs};
    nanosleep(&ts, nullptr);
  }
  ASSERT_EQ(sent.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(sent[k].first, k + 1);
    EXPECT_GE(sent[k].second, (k + 1) * 20 * kMs);  // never early
    // And not much late, loosely: the reply thread ran more than 10 ms late once on a shared
    // 2-core VM at load 19. Never early and in order are the contract, checked above.
    EXPECT_LT(sent[k].second, (k + 1) * 20 * kMs + 40 * kMs);
  }
}

// The wake-up compensation makes the thread wake early; it must then wait out the rest. Many
// short, close deadlines (as under an SSD profile) with not one reply sent before its due time.
TEST(MountReplyScheduler, NeverSendsAReplyBeforeItsDueTime) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  constexpr int kReplies = 2000;
  std::atomic<int> sent{0};
  std::atomic<int> early{0};
  std::atomic<int64_t> worst_early{0};
  const int64_t start = clock.now_ns() + kMs;
  for (int i = 0; i < kReplies; ++i) {
    const int64_t due = start + i * 50'000;  // one every 50 us, 100 ms in all
    s.at(due, [&, due] {
      const int64_t now = clock.now_ns();
      if (now < due) {
        ++early;
        worst_early = std::max<int64_t>(worst_early.load(), due - now);
      }
      ++sent;
    });
  }
  while (sent.load() < kReplies) {
    timespec ts{0, kMs};
    nanosleep(&ts, nullptr);
  }
  EXPECT_EQ(early.load(), 0) << "worst " << worst_early.load() << " ns early";
  EXPECT_EQ(s.lateness().early, 0u);
}

// The CPUs this process may run on (at most `limit`).
std::vector<int> allowed_cpus(size_t limit) {
  cpu_set_t mask;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < limit; ++c) {
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  }
  return cpus;
}

void wait_until_sent(const ReplyScheduler& s) {
  while (s.queued() > 0) {
    timespec ts{0, kMs};
    nanosleep(&ts, nullptr);
  }
}

// A reply for a CPU goes out from a thread on that CPU (the caller's, caller_cpu.h) when the CPU
// is free, else from the unpinned thread kIdleLaneGraceNs later: once either way, never early.
// A CPU the daemon may not use gets the unpinned thread.
TEST(MountReplyScheduler, RepliesForACpuAreSentOnceFromItNeverEarly) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  const std::vector<int> cpus = allowed_cpus(4);
  ASSERT_FALSE(cpus.empty());
  struct Result {
    int asked, ran_on;
    bool by_lane;  // sent by the CPU's own lane (its thread runs at SCHED_IDLE)
    int64_t early_ns;
  };
  std::mutex mu;
  std::vector<Result> results;
  const int64_t start = clock.now_ns() + kMs;
  constexpr int kPerCpu = 100;
  for (int i = 0; i < kPerCpu; ++i) {
    for (int cpu : cpus) {
      const int64_t due = start + i * 200'000 + cpu * 10'000;
      s.at_cpu(due, cpu, [&, cpu, due] {
        const int64_t now = clock.now_ns();
        std::lock_guard lock(mu);
        results.push_back({cpu, sched_getcpu(), sched_getscheduler(0) == SCHED_IDLE,
                           std::max<int64_t>(due - now, 0)});
      });
    }
  }
  bool unpinned_ran = false;
  s.at_cpu(clock.now_ns() + kMs, CPU_SETSIZE + 5, [&] { unpinned_ran = true; });
  wait_until_sent(s);
  s.drain();  // the last replies have left their heaps; wait for them to have run
  EXPECT_TRUE(unpinned_ran);
  EXPECT_EQ(s.pinned_lanes(), cpus.size());
  ASSERT_EQ(results.size(), cpus.size() * kPerCpu);  // each exactly once
  size_t on_its_cpu = 0;
  std::vector<int> by_lane(CPU_SETSIZE, 0);
  for (const Result& r : results) {
    if (r.ran_on == r.asked) ++on_its_cpu;
    if (r.by_lane) {
      EXPECT_EQ(r.ran_on, r.asked);  // a CPU's lane sends from that CPU, always
      ++by_lane[r.asked];
    }
    EXPECT_EQ(r.early_ns, 0);
  }
  // Some replies come from a CPU's own lane. Not asserted per CPU: the busier CPU's lane sent 5-12
  // of its 100 here, and none in 2 of 6 runs (with the real-time thread then sending them on that
  // CPU); before 34f8051 one CPU's lane always sent none (it stopped learning once it lost).
  int from_lanes = 0;
  for (int n : by_lane) from_lanes += n;
  EXPECT_GT(from_lanes, 0);
  // The first replies of a new lane come late (its wake-ahead has not learned its CPU's wake-up
  // yet) and go by the backup; here 80-95% of them came from their CPU.
  EXPECT_GE(on_its_cpu, results.size() / 2);
  EXPECT_EQ(s.lateness().early, 0u);
  EXPECT_EQ(s.lateness().replies, results.size() + 1);
}

// A CPU kept busy by an ordinary thread starves its lane's lowest-priority thread: the unpinned
// thread sends the reply a grace period after its due time, not when the CPU frees up.
TEST(MountReplyScheduler, ABusyCpusRepliesGoByTheUnpinnedThread) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  const std::vector<int> cpus = allowed_cpus(1);
  ASSERT_FALSE(cpus.empty());
  std::atomic<bool> stop{false};
  std::thread hog([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[0], &one);
    sched_setaffinity(0, sizeof(one), &one);
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  // One round: 20 replies due 2 ms ahead on the busy CPU; the worst lateness. A round the host
  // stalls the guest through (once 45 ms, a fresh clone's ctest) is measured again, up to three
  // rounds: a stall only ever makes a reply later, so the best round is the scheduler's own.
  std::atomic<int> sent{0};
  std::atomic<int64_t> late_ns{0};
  int sent_while_busy = 0;
  int64_t best_late_ns = INT64_MAX;
  for (int round = 0; round < 3 && best_late_ns >= 3 * kMs; ++round) {
    sent = 0;
    late_ns = 0;
    for (int i = 0; i < 20; ++i) {
      const int64_t due = clock.now_ns() + 2 * kMs;
      s.at_cpu(due, cpus[0], [&, due] {
        late_ns = std::max<int64_t>(late_ns.load(), clock.now_ns() - due);
        ++sent;
      });
      timespec ts{0, 3 * kMs};
      nanosleep(&ts, nullptr);
    }
    wait_until_sent(s);
    sent_while_busy = sent.load();
    EXPECT_EQ(sent_while_busy, 20);
    EXPECT_GE(late_ns.load(), 0);
    best_late_ns = std::min(best_late_ns, late_ns.load());
  }
  stop = true;
  hog.join();
  s.drain();
  EXPECT_EQ(sent.load(), 20);  // once each
  // The worst of 20 was 138-249 us late with the backup and 4.0-25 ms without it (2-core VM, three
  // runs each): starved, the lane sends when the scheduler gives its lowest priority a turn.
  EXPECT_LT(best_late_ns, 3 * kMs);
}

// Sends a reply due `wait_ns` from now for `cpu` and returns the thread that sent it once it has
// gone, after checking that it did not go before its time.
std::thread::id sender_of_reply_due_in(ReplyScheduler& s, const Clock& clock, int64_t wait_ns,
                                       int cpu) {
  std::atomic<bool> sent{false};
  std::thread::id sender;
  const int64_t due = clock.now_ns() + wait_ns;
  s.at_cpu(due, cpu, [&] {
    EXPECT_GE(clock.now_ns(), due);
    sender = std::this_thread::get_id();
    sent.store(true, std::memory_order_release);
  });
  while (!sent.load(std::memory_order_acquire)) std::this_thread::yield();
  return sender;
}

// Whether a lane's thread, not this one, sent one of five such replies. A thread preempted for
// longer than the wait finds the reply due and sends it at once itself: five in a row is not what
// a correct scheduler does, whatever the machine's load.
bool lane_sends_one_of_five(ReplyScheduler& s, const Clock& clock, int64_t wait_ns, int cpu) {
  for (int i = 0; i < 5; ++i) {
    if (sender_of_reply_due_in(s, clock, wait_ns, cpu) != std::this_thread::get_id()) return true;
  }
  return false;
}

TEST(MountReplyScheduler, AShortWaitForThisThreadIsSpunByIt) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  const auto self = std::this_thread::get_id();
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(sender_of_reply_due_in(s, clock, 20'000, ReplyTimer::kThisThread), self);
  }
  EXPECT_EQ(s.lateness().early, 0u);
  EXPECT_EQ(s.queued(), 0u);
  // Each spun for, unless the thread lost its CPU for longer than the wait before it could.
  EXPECT_GE(s.spun_replies(), 100u);
  EXPECT_LE(s.spun_replies(), 200u);
  // A longer wait goes to a lane's thread, as does a short one for any CPU.
  EXPECT_TRUE(
      lane_sends_one_of_five(s, clock, ReplyTimer::kShortWaitNs + kMs, ReplyTimer::kThisThread));
  EXPECT_TRUE(lane_sends_one_of_five(s, clock, 20'000, ReplyTimer::kAnyCpu));
  EXPECT_EQ(s.lateness().early, 0u);
}

TEST(MountReplyScheduler, AShortWaitGoesToALaneWhileAnotherReplyWaits) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  s.at(clock.now_ns() + 3600 * 1000 * kMs, [] {});  // waits an hour
  EXPECT_TRUE(lane_sends_one_of_five(s, clock, 20'000, ReplyTimer::kThisThread));
  s.drain();
}

// A thread spinning for a reply gives up when the clock stands still (a stall, here a fake clock
// that never moves) and leaves the reply to a lane.
TEST(MountReplyScheduler, ASpinGivesUpWhenTheClockStandsStill) {
  FakeClock clock(1000 * kMs);
  ReplyScheduler s(clock);
  bool sent = false;
  s.at_cpu(clock.now_ns() + 20'000, ReplyTimer::kThisThread, [&] { sent = true; });
  EXPECT_FALSE(sent);
  EXPECT_EQ(s.queued(), 1u);
  s.drain();
  EXPECT_TRUE(sent);
}

TEST(MountReplyScheduler, UsesCallersCpusWhileFewerRepliesWaitThanCpus) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  const size_t cpus = allowed_cpus(CPU_SETSIZE).size();
  EXPECT_TRUE(s.routes_by_cpu());
  for (size_t i = 0; i < cpus; ++i) s.at(clock.now_ns() + 3600 * 1000 * kMs, [] {});
  EXPECT_FALSE(s.routes_by_cpu());
  s.drain();
  EXPECT_TRUE(s.routes_by_cpu());  // all sent
}

TEST(MountReplyScheduler, RecordsEveryRepliesLateness) {
  FakeClock clock(1000 * kMs);
  ReplyScheduler s(clock);
  s.at(990 * kMs, [] {});   // due 10 ms ago: sent at once, 10 ms late
  s.at(1000 * kMs, [] {});  // due now
  const LatenessSummary l = s.lateness();
  EXPECT_EQ(l.replies, 2u);
  EXPECT_EQ(l.early, 0u);
  EXPECT_EQ(l.max_ns, 10 * kMs);
  EXPECT_EQ(l.p50_ns, 0);
  EXPECT_EQ(l.p99_ns, 10 * kMs);
}

TEST(MountReplyScheduler, DrainSendsEverythingNow) {
  MonotonicClock clock;
  ReplyScheduler s(clock);
  std::atomic<int> count{0};
  for (int i = 0; i < 100; ++i) s.at(clock.now_ns() + 3600 * 1000 * kMs, [&] { ++count; });
  EXPECT_EQ(s.queued(), 100u);
  s.drain();
  EXPECT_EQ(count.load(), 100);
  s.at(clock.now_ns() + 3600 * 1000 * kMs, [&] { ++count; });  // after drain: at once
  EXPECT_EQ(count.load(), 101);
  EXPECT_EQ(s.lateness().early, 101u);  // all sent long before their time
}

}  // namespace
}  // namespace diskcond::mount
