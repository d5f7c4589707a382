#include "dmc/mount/reply_scheduler.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>

namespace diskcond::mount {

ReplyScheduler::ReplyScheduler(const Clock& clock) : clock_(clock) {
  thread_ = std::thread([this] { run(); });
}

ReplyScheduler::~ReplyScheduler() {
  drain();
}

void ReplyScheduler::at(int64_t due_ns, Reply reply) {
  const int64_t now = clock_.now_ns();
  if (due_ns <= now) {
    lateness_.record(now - due_ns);
    reply();
    return;
  }
  std::unique_lock lock(mu_);
  if (stopping_) {
    lock.unlock();
    lateness_.record(clock_.now_ns() - due_ns);
    reply();
    return;
  }
  const bool earliest = heap_.empty() || due_ns < heap_.front().due_ns;
  heap_.push_back(Entry{due_ns, next_seq_++, std::move(reply)});
  std::push_heap(heap_.begin(), heap_.end(), Later());
  lock.unlock();
  if (earliest) wake_.notify_one();
}

void ReplyScheduler::drain() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

size_t ReplyScheduler::queued() const {
  std::lock_guard lock(mu_);
  return heap_.size();
}

int64_t ReplyScheduler::wake_ahead_ns() const {
  std::lock_guard lock(mu_);
  return wake_ahead_.last_ns();
}

int64_t ReplyScheduler::max_lateness_ns() const {
  std::lock_guard lock(mu_);
  return max_lateness_ns_;
}

void ReplyScheduler::run() {
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  // Real-time priority when allowed (root): a reply due now must not wait behind other
  // processes' threads for a CPU. The thread sleeps between replies and each reply is short, so
  // it takes little CPU; the kernel's real-time throttling bounds it in any case.
  sched_param param{};
  param.sched_priority = 1;
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  std::vector<Entry> ready;
  std::unique_lock lock(mu_);
  for (;;) {
    if (heap_.empty()) {
      if (stopping_) return;
      wake_.wait(lock);
      continue;
    }
    int64_t now = clock_.now_ns();
    const int64_t due = heap_.front().due_ns;
    const int64_t wait = due - now;
    const int64_t wake_at = due - wake_ahead_.ahead_ns(wait);
    if (wake_at > now && !stopping_) {
      // The wall time at which the clock reads wake_at: later by any stall before it; never while
      // a stall that lasts until released holds it (poke() wakes the thread then).
      const int64_t wall_wake_at = clock_.wall_ns_when(wake_at);
      if (wall_wake_at == kNeverNs) {
        wake_.wait(lock);
        continue;
      }
      // steady_clock is CLOCK_MONOTONIC on Linux, the clock MonotonicClock reads.
      auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(wall_wake_at));
      if (wake_.wait_until(lock, deadline) == std::cv_status::no_timeout) continue;
      now = clock_.now_ns();
      if (heap_.empty() || heap_.front().due_ns != due) continue;
      if (now < wake_at) continue;  // a stall began while it waited: wait again
      // Woken by the timer for the entry we waited for: learn how late timers fire.
      wake_ahead_.learn(wait, clock_.wall_now_ns() - wall_wake_at);
    }
    if (due > now && !stopping_) {
      // Woke ahead: spin the rest (at most the wake-up compensation) so nothing leaves early.
      lock.unlock();
      now = spin_until(due);
      lock.lock();
    }
    while (!heap_.empty() && (stopping_ || heap_.front().due_ns <= now)) {
      std::pop_heap(heap_.begin(), heap_.end(), Later());
      max_lateness_ns_ = std::max(max_lateness_ns_, now - heap_.back().due_ns);
      ready.push_back(std::move(heap_.back()));
      heap_.pop_back();
    }
    lock.unlock();
    for (Entry& e : ready) {
      lateness_.record(clock_.now_ns() - e.due_ns);
      e.reply();
    }
    ready.clear();
    lock.lock();
  }
}

int64_t ReplyScheduler::spin_until(int64_t due_ns) const {
  // A stall that begins meanwhile stops the clock: give up after kMaxWakeAheadNs of wall time,
  // and the loop in run() waits again.
  const int64_t give_up = clock_.wall_now_ns() + kMaxWakeAheadNs;
  int64_t now = clock_.now_ns();
  while (now < due_ns && clock_.wall_now_ns() < give_up) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    now = clock_.now_ns();
  }
  return now;
}

void ReplyScheduler::poke() {
  { std::lock_guard lock(mu_); }
  wake_.notify_one();
}

}  // namespace diskcond::mount
