#include "dmc/mount/reply_scheduler.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <string>
#include <thread>

#include "posix/thread_name.h"

namespace diskcond::mount {
namespace {

int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Busy-waits until `clock` reaches `due_ns`, CLOCK_MONOTONIC reaches `give_up_ns` (the clock may
// stand still: a stall, or a test's fake) or `taken` (may be null) is set; returns the clock's
// time read last, after the give-up check, so a thread preempted meanwhile does not return a
// stale time.
int64_t spin_until(const Clock& clock, int64_t due_ns, int64_t give_up_ns,
                   const std::atomic<bool>* taken) {
  for (;;) {
    const bool give_up = steady_now_ns() >= give_up_ns ||
                         (taken != nullptr && taken->load(std::memory_order_acquire));
    const int64_t now = clock.now_ns();
    if (now >= due_ns || give_up) return now;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

}  // namespace

// Set by whichever lane sends a reply queued on two (a CPU's lane and the unpinned one's backup):
// the other drops its copy.
using Taken = std::shared_ptr<std::atomic<bool>>;

// One min-heap of replies and the thread that sends them at their due times. The unpinned lane's
// thread runs at real-time priority on any CPU; a CPU's lane's thread is pinned to it at the
// lowest priority (header comment).
class ReplyScheduler::Lane {
 public:
  Lane(const Clock& clock, LatenessHistogram& lateness, std::atomic<int>& waiting, int cpu)
      : clock_(clock), lateness_(lateness), waiting_(waiting), cpu_(cpu) {
    thread_ = std::thread([this] { run(); });
  }
  ~Lane() { drain(); }

  // Queues `reply` for `due_ns`; `taken` (or null): shared with the reply's copy on another lane,
  // of which only the first to come due is sent. REQUIRES: due_ns > the clock's now when the
  // caller looked.
  void at(int64_t due_ns, Reply reply, Taken taken = nullptr) {
    std::unique_lock lock(mu_);
    if (stopping_) {
      lock.unlock();
      send(due_ns, reply, taken);
      return;
    }
    const bool earliest = heap_.empty() || due_ns < heap_.front().due_ns;
    heap_.push_back(Entry{due_ns, next_seq_++, std::move(reply), std::move(taken)});
    std::push_heap(heap_.begin(), heap_.end(), Later());
    lock.unlock();
    if (earliest) wake_.notify_one();
  }
  void poke() {
    { std::lock_guard lock(mu_); }
    wake_.notify_one();
  }
  void drain() {
    {
      std::lock_guard lock(mu_);
      if (stopping_ && !thread_.joinable()) return;
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  size_t queued() const {
    std::lock_guard lock(mu_);
    return heap_.size();
  }
  int64_t max_lateness_ns() const {
    std::lock_guard lock(mu_);
    return max_lateness_ns_;
  }
  int64_t wake_ahead_ns() const {
    std::lock_guard lock(mu_);
    return wake_ahead_.last_ns();
  }

 private:
  struct Entry {
    int64_t due_ns;
    uint64_t seq;  // keeps equal due times in submission order
    Reply reply;
    Taken taken;  // null unless the reply is queued on two lanes
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.due_ns != b.due_ns ? a.due_ns > b.due_ns : a.seq > b.seq;
    }
  };
  static bool is_taken(const Taken& taken) {
    return taken != nullptr && taken->load(std::memory_order_acquire);
  }
  // Sends `reply` and records its lateness, unless the other lane has sent it.
  void send(int64_t due_ns, const Reply& reply, const Taken& taken) {
    if (taken != nullptr && taken->exchange(true, std::memory_order_acq_rel)) return;
    waiting_.fetch_sub(1, std::memory_order_relaxed);
    lateness_.record(clock_.now_ns() - due_ns);
    reply();
  }
  void run();
  // Busy-waits until clock_ reaches `due_ns` or `taken` is set, for at most kMaxWakeAheadNs of
  // wall time; returns the time it then read. Tests with a FakeClock only use past-due replies.
  int64_t spin_until(int64_t due_ns, const Taken& taken) const;

  const Clock& clock_;
  LatenessHistogram& lateness_;
  std::atomic<int>& waiting_;  // ReplyScheduler::waiting_
  const int cpu_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Entry> heap_;                // guarded by mu_
  uint64_t next_seq_ = 0;                  // guarded by mu_
  bool stopping_ = false;                  // guarded by mu_
  int64_t max_lateness_ns_ = 0;            // guarded by mu_
  WakeAhead wake_ahead_{kMaxWakeAheadNs};  // guarded by mu_
  std::thread thread_;
};

void ReplyScheduler::Lane::run() {
  posix::name_this_thread(cpu_ == kAnyCpu ? "dmc-reply" : "dmc-reply-" + std::to_string(cpu_));
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sched_param param{};
  if (cpu_ != kAnyCpu) {
    // A pinned lane that cannot pin (the mask changed since) still sends its replies, from
    // wherever it runs.
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu_, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
  } else {
    // Real-time priority when allowed (root): a reply due now must not wait behind other
    // processes' threads for a CPU. The thread sleeps between replies and each reply is short,
    // so it takes little CPU; the kernel's real-time throttling bounds it in any case.
    param.sched_priority = 1;
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
  }
  std::vector<Entry> ready;
  std::unique_lock lock(mu_);
  for (;;) {
    if (heap_.empty()) {
      if (stopping_) return;
      wake_.wait(lock);
      continue;
    }
    if (is_taken(heap_.front().taken)) {  // sent by the other lane: drop it, nothing to wait for
      std::pop_heap(heap_.begin(), heap_.end(), Later());
      heap_.pop_back();
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
      // Woken by the timer for the entry we waited for: learn how late timers fire, even if the
      // other lane has sent it meanwhile (a CPU's lane that stopped learning once it lost would
      // stay late and lose every time after).
      wake_ahead_.learn(wait, clock_.wall_now_ns() - wall_wake_at);
      if (is_taken(heap_.front().taken)) continue;
    }
    if (due > now && !stopping_) {
      // Woke ahead: spin the rest (at most the wake-up compensation) so nothing leaves early.
      const Taken taken = heap_.front().taken;
      lock.unlock();
      now = spin_until(due, taken);
      lock.lock();
    }
    while (!heap_.empty() && (stopping_ || heap_.front().due_ns <= now)) {
      std::pop_heap(heap_.begin(), heap_.end(), Later());
      max_lateness_ns_ = std::max(max_lateness_ns_, now - heap_.back().due_ns);
      ready.push_back(std::move(heap_.back()));
      heap_.pop_back();
    }
    lock.unlock();
    for (Entry& e : ready) send(e.due_ns, e.reply, e.taken);
    ready.clear();
    lock.lock();
  }
}

int64_t ReplyScheduler::Lane::spin_until(int64_t due_ns, const Taken& taken) const {
  // A stall that begins meanwhile stops the clock: give up after kMaxWakeAheadNs of wall time,
  // and the loop in run() waits again.
  return mount::spin_until(clock_, due_ns, steady_now_ns() + kMaxWakeAheadNs, taken.get());
}

ReplyScheduler::ReplyScheduler(const Clock& clock)
    : clock_(clock), any_cpu_(std::make_unique<Lane>(clock, lateness_, waiting_, kAnyCpu)) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  const size_t cpus = std::clamp<long>(configured, 1, CPU_SETSIZE);
  allowed_cpus_.assign(cpus, false);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    for (size_t c = 0; c < cpus; ++c) allowed_cpus_[c] = CPU_ISSET(c, &mask);
  }
  routing_limit_ = static_cast<int>(std::count(allowed_cpus_.begin(), allowed_cpus_.end(), true));
  pinned_.resize(cpus);
  by_cpu_ = std::make_unique<std::atomic<Lane*>[]>(cpus);
}

ReplyScheduler::~ReplyScheduler() {
  drain();
}

ReplyScheduler::Lane& ReplyScheduler::lane_for(int cpu) {
  if (cpu < 0 || static_cast<size_t>(cpu) >= allowed_cpus_.size() || !allowed_cpus_[cpu])
    return *any_cpu_;
  if (Lane* lane = by_cpu_[cpu].load(std::memory_order_acquire)) return *lane;
  std::lock_guard lock(lanes_mu_);
  if (drained_) return *any_cpu_;
  if (!pinned_[cpu]) {
    pinned_[cpu] = std::make_unique<Lane>(clock_, lateness_, waiting_, cpu);
    by_cpu_[cpu].store(pinned_[cpu].get(), std::memory_order_release);
  }
  return *pinned_[cpu];
}

template <class F>
void ReplyScheduler::each_lane(F f) const {
  f(*any_cpu_);
  std::lock_guard lock(lanes_mu_);
  for (const auto& lane : pinned_) {
    if (lane) f(*lane);
  }
}

int64_t ReplyScheduler::spin_for_short_wait(int64_t due_ns, int64_t now) {
  const int64_t wall_now = clock_.wall_now_ns();
  const int64_t wall_due = clock_.wall_ns_when(due_ns);  // kNeverNs while a stall holds it
  if (wall_due == kNeverNs || wall_due - wall_now >= kShortWaitNs) return now;
  int none = 0;  // another reply waiting (or spun for): leave this one to a lane
  if (!waiting_.compare_exchange_strong(none, 1, std::memory_order_acq_rel)) return now;
  now = spin_until(clock_, due_ns, steady_now_ns() + kShortWaitNs, nullptr);
  waiting_.fetch_sub(1, std::memory_order_acq_rel);
  return now;
}

void ReplyScheduler::at_cpu(int64_t due_ns, int cpu, Reply reply) {
  int64_t now = clock_.now_ns();
  if (cpu == kThisThread) {
    if (due_ns > now && due_ns - now < kShortWaitNs) {
      now = spin_for_short_wait(due_ns, now);
      if (due_ns <= now) spun_.fetch_add(1, std::memory_order_relaxed);
    }
    cpu = kAnyCpu;
  }
  if (due_ns <= now) {
    lateness_.record(now - due_ns);
    reply();
    return;
  }
  waiting_.fetch_add(1, std::memory_order_relaxed);
  Lane& lane = lane_for(cpu);
  if (&lane == any_cpu_.get()) {
    lane.at(due_ns, std::move(reply));
    return;
  }
  // The CPU's lane sends it unless its CPU is busy; the unpinned lane kIdleLaneGraceNs later if
  // it was.
  auto shared = std::make_shared<Reply>(std::move(reply));
  auto taken = std::make_shared<std::atomic<bool>>(false);
  lane.at(
      due_ns, [shared] { (*shared)(); }, taken);
  any_cpu_->at(
      due_ns + kIdleLaneGraceNs, [shared] { (*shared)(); }, std::move(taken));
}

bool ReplyScheduler::routes_by_cpu() const {
  return waiting_.load(std::memory_order_relaxed) < routing_limit_;
}

void ReplyScheduler::poke() {
  each_lane([](Lane& lane) { lane.poke(); });
}

void ReplyScheduler::drain() {
  {
    std::lock_guard lock(lanes_mu_);
    drained_ = true;  // no lane is created from now on; later replies go to the drained one
  }
  each_lane([](Lane& lane) { lane.drain(); });
}

size_t ReplyScheduler::queued() const {
  size_t n = 0;
  each_lane([&](const Lane& lane) { n += lane.queued(); });
  return n;
}

int64_t ReplyScheduler::wake_ahead_ns() const {
  int64_t ahead = 0;
  each_lane([&](const Lane& lane) { ahead = std::max(ahead, lane.wake_ahead_ns()); });
  return ahead;
}

int64_t ReplyScheduler::max_lateness_ns() const {
  int64_t late = 0;
  each_lane([&](const Lane& lane) { late = std::max(late, lane.max_lateness_ns()); });
  return late;
}

size_t ReplyScheduler::pinned_lanes() const {
  std::lock_guard lock(lanes_mu_);
  return static_cast<size_t>(std::count_if(pinned_.begin(), pinned_.end(),
                                           [](const auto& lane) { return lane != nullptr; }));
}

}  // namespace diskcond::mount
