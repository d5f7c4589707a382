// Closes descriptors a little later, on a background thread, for the closes that can cost the
// backing file system real work: the last descriptor of an unlinked file frees its blocks there
// (on an ext4 mounted with `discard`, a synchronous discard, ~100 us a file on this project's
// VMs). Done in the forget handler, that freeing ran beside the caller's next requests and held
// the backing journal up: `rm -rf` of 4,000 files through an unconditioned mount took
// 0.70-0.80 s with it and 0.31-0.40 s with the closes left out (docs/conditioner.md, "Closing
// forgotten inodes").
//
// Policy: a queued descriptor is closed once no new one has arrived for `quiet` (the burst of
// removals is over), or once it has waited `max_delay`, whichever comes first. A thread of lowest
// priority was tried and made that `rm -rf` 2x slower: the freeing it was preempted in holds
// locks of the backing file system that the removals wait for.
//
// Contract: every descriptor passed to close_later() is closed exactly once: by the thread, by
// drain(), at once when `max_pending` are already waiting (the process's descriptors stay
// bounded), or by the destructor. drain() returns once every descriptor queued before it is
// closed, so a caller that needs the backing space freed (statfs) sees it freed. Thread-safe;
// the thread starts with the first deferred close.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace diskcond::mount {

class DeferredClose {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kDefaultMaxPending = 4096;
  static constexpr Clock::duration kDefaultQuiet = std::chrono::milliseconds(50);
  static constexpr Clock::duration kDefaultMaxDelay = std::chrono::seconds(2);

  explicit DeferredClose(size_t max_pending = kDefaultMaxPending,
                         Clock::duration quiet = kDefaultQuiet,
                         Clock::duration max_delay = kDefaultMaxDelay)
      : max_pending_(max_pending), quiet_(quiet), max_delay_(max_delay) {}
  ~DeferredClose();
  DeferredClose(const DeferredClose&) = delete;
  DeferredClose& operator=(const DeferredClose&) = delete;

  void close_later(int fd);
  void drain();
  size_t pending() const;

 private:
  void run();
  // REQUIRES mu_ held and queue_ not empty: when the oldest queued descriptor is due.
  Clock::time_point due_locked() const;

  const size_t max_pending_;
  const Clock::duration quiet_;
  const Clock::duration max_delay_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;                         // the thread finished a close
  std::deque<std::pair<int, Clock::time_point>> queue_;  // oldest first; guarded by mu_
  Clock::time_point last_arrival_;                       // guarded by mu_
  bool closing_ = false;                                 // the thread is in close(); guarded by mu_
  bool stop_ = false;                                    // guarded by mu_
  std::thread thread_;                                   // started under mu_
};

}  // namespace diskcond::mount
