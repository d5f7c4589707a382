#include "dmc/mount/idle_poll.h"

#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <cerrno>

#include "posix/cpu_latency.h"

namespace diskcond::mount {
namespace {

constexpr int64_t kMs = 1'000'000;

// Records what the IdlePoll asks of the device, and when, on the wall clock.
class FakeHolder final : public CpuLatencyHolder {
 public:
  struct Log {
    std::atomic<int> holds{0}, releases{0};
    std::atomic<bool> holding{false};
    std::atomic<int64_t> released_at_ns{0};
    int refuse = 0;  // -errno every hold() returns; 0 = grant
  };
  explicit FakeHolder(Log& log) : log_(log) {}
  int hold() override {
    if (log_.refuse != 0) return log_.refuse;
    ++log_.holds;
    log_.holding = true;
    return 0;
  }
  void release() override {
    ++log_.releases;
    log_.holding = false;
    log_.released_at_ns = monotonic_now_ns();
  }

 private:
  Log& log_;
};

void sleep_ms(int ms) {
  timespec ts{0, ms * kMs};
  nanosleep(&ts, nullptr);
}

// Waits up to 2 s for `done`.
template <typename F>
bool eventually(F done) {
  for (int i = 0; i < 2000 && !done(); ++i) sleep_ms(1);
  return done();
}

TEST(IdlePollRelease, WithdrawnOnceNoTrafficForTheLinger) {
  EXPECT_EQ(idle_poll_release_in_ns(1'000, 500, 1'000), 500);
  EXPECT_EQ(idle_poll_release_in_ns(1'499, 500, 1'000), 1);
  EXPECT_EQ(idle_poll_release_in_ns(1'500, 500, 1'000), 0);
  EXPECT_EQ(idle_poll_release_in_ns(9'000, 500, 1'000), 0);
}

TEST(IdlePoll, HeldWhileTrafficFlowsAndWithdrawnALingerAfterIt) {
  MonotonicClock clock;
  FakeHolder::Log log;
  constexpr int64_t kLinger = 50 * kMs;
  IdlePoll poll(clock, std::make_unique<FakeHolder>(log), kLinger);
  // The constructor tried the device once and gave it back.
  EXPECT_EQ(log.holds, 1);
  EXPECT_EQ(log.releases, 1);
  IdlePollState s = poll.state();
  EXPECT_TRUE(s.enabled);
  EXPECT_FALSE(s.held);
  EXPECT_EQ(s.holds, 0u);

  poll.busy(clock.now_ns());
  ASSERT_TRUE(eventually([&] { return log.holding.load(); }));
  const int64_t seen_held = clock.now_ns();  // at or after the hold began
  int64_t last_busy = 0;
  for (int i = 0; i < 20; ++i) {  // 100 ms of traffic, twice the linger: one hold throughout
    last_busy = clock.now_ns();
    poll.busy(last_busy);
    sleep_ms(5);
  }
  EXPECT_EQ(log.holds, 2);
  EXPECT_TRUE(poll.state().held);
  ASSERT_TRUE(eventually([&] { return !log.holding.load(); }));
  EXPECT_GE(log.released_at_ns - last_busy, kLinger);  // never withdrawn early
  s = poll.state();
  EXPECT_FALSE(s.held);
  EXPECT_EQ(s.holds, 1u);
  EXPECT_GE(s.held_ns, last_busy - seen_held + kLinger);

  poll.busy(clock.now_ns());  // traffic again: taken again
  ASSERT_TRUE(eventually([&] { return log.holding.load(); }));
  EXPECT_EQ(poll.state().holds, 2u);
}

TEST(IdlePoll, StopWithdrawsAHeldRequest) {
  MonotonicClock clock;
  FakeHolder::Log log;
  IdlePoll poll(clock, std::make_unique<FakeHolder>(log), 10'000 * kMs);
  poll.busy(clock.now_ns());
  ASSERT_TRUE(eventually([&] { return log.holding.load(); }));
  poll.stop();
  EXPECT_FALSE(log.holding);
  EXPECT_FALSE(poll.state().held);
  poll.stop();  // idempotent
}

TEST(IdlePoll, ARefusedDeviceDisablesItAndSaysWhy) {
  MonotonicClock clock;
  FakeHolder::Log log;
  log.refuse = -EACCES;
  IdlePoll poll(clock, std::make_unique<FakeHolder>(log));
  poll.busy(clock.now_ns());
  const IdlePollState s = poll.state();
  EXPECT_FALSE(s.enabled);
  EXPECT_EQ(s.error, EACCES);
  EXPECT_FALSE(s.held);
  EXPECT_EQ(log.holds, 0);
}

TEST(IdlePoll, TheKernelsDeviceHoldsZeroWhileBusy) {
  const int64_t before = posix::current_cpu_latency_limit_us();
  if (before < 0) GTEST_SKIP() << posix::kCpuLatencyDevice << " cannot be used here (needs root)";
  MonotonicClock clock;
  if (!posix::cpuidle_driver_present()) {
    // No cpuidle driver: the request could not make idle CPUs poll, so none is taken.
    IdlePoll poll(clock, cpu_latency_device(), 20 * kMs);
    EXPECT_FALSE(poll.state().enabled);
    EXPECT_EQ(poll.state().error, ENODEV);
    poll.busy(clock.now_ns());
    EXPECT_EQ(posix::current_cpu_latency_limit_us(), before);
    return;
  }
  IdlePoll poll(clock, cpu_latency_device(), 20 * kMs);
  ASSERT_TRUE(poll.state().enabled);
  poll.busy(clock.now_ns());
  EXPECT_TRUE(eventually([] { return posix::current_cpu_latency_limit_us() == 0; }));
  EXPECT_TRUE(eventually([&] { return posix::current_cpu_latency_limit_us() == before; }));
}

}  // namespace
}  // namespace diskcond::mount
