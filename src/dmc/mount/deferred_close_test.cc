#include "dmc/mount/deferred_close.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <vector>

namespace diskcond::mount {
namespace {

// A pipe whose write end is handed over: the read end sees end-of-file exactly when the write
// end is closed, whatever number the descriptor gets next.
struct Pipe {
  Pipe() { EXPECT_EQ(pipe(ends.data()), 0); }
  Pipe(const Pipe&) = delete;
  ~Pipe() { close(ends[0]); }
  int give_write_end() { return ends[1]; }
  // True when the write end is closed within `timeout_ms`.
  bool writer_closed(int timeout_ms = 0) const {
    pollfd p{ends[0], POLLIN, 0};
    if (poll(&p, 1, timeout_ms) != 1) return false;
    char c;
    return read(ends[0], &c, 1) == 0;
  }
  std::array<int, 2> ends{-1, -1};
};

TEST(MountDeferredClose, DrainReturnsWithEveryQueuedDescriptorClosed) {
  DeferredClose closes;
  std::vector<Pipe> pipes(50);
  for (Pipe& p : pipes) closes.close_later(p.give_write_end());
  closes.drain();
  EXPECT_EQ(closes.pending(), 0u);
  for (const Pipe& p : pipes) EXPECT_TRUE(p.writer_closed());
}

TEST(MountDeferredClose, TheThreadClosesWithoutADrain) {
  DeferredClose closes;
  Pipe p;
  closes.close_later(p.give_write_end());
  EXPECT_TRUE(p.writer_closed(10000));
}

TEST(MountDeferredClose, WaitsUntilArrivalsPause) {
  DeferredClose closes(100, std::chrono::seconds(30), std::chrono::seconds(30));
  Pipe p;
  closes.close_later(p.give_write_end());
  EXPECT_FALSE(p.writer_closed(100));
  EXPECT_EQ(closes.pending(), 1u);
  closes.drain();
  EXPECT_TRUE(p.writer_closed());
}

TEST(MountDeferredClose, ADescriptorWaitsNoLongerThanTheMaximumDelayDuringABurst) {
  DeferredClose closes(1000, std::chrono::seconds(30), std::chrono::milliseconds(50));
  std::vector<Pipe> pipes(100);
  Pipe& first = pipes.front();
  closes.close_later(first.give_write_end());
  bool closed = false;
  for (size_t i = 1; i < pipes.size() && !closed; ++i) {  // arrivals every 10 ms: never quiet
    closes.close_later(pipes[i].give_write_end());
    closed = first.writer_closed(10);
  }
  EXPECT_TRUE(closed);
}

TEST(MountDeferredClose, ClosesAtOnceWhenTheQueueIsFull) {
  DeferredClose closes(0);
  Pipe p;
  closes.close_later(p.give_write_end());
  EXPECT_TRUE(p.writer_closed());
  EXPECT_EQ(closes.pending(), 0u);
}

TEST(MountDeferredClose, TheDestructorClosesWhatIsLeft) {
  std::vector<Pipe> pipes(50);
  {
    DeferredClose closes;
    for (Pipe& p : pipes) closes.close_later(p.give_write_end());
  }
  for (const Pipe& p : pipes) EXPECT_TRUE(p.writer_closed());
}

}  // namespace
}  // namespace diskcond::mount
