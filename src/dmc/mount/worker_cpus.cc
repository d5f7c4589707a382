#include "dmc/mount/worker_cpus.h"

#include <pthread.h>
#include <sched.h>

#include <utility>

namespace diskcond::mount {

WorkerCpus::WorkerCpus(const std::vector<bool>& allowed, std::function<ReplyTotals()> totals)
    : totals_(std::move(totals)) {
  int count = 0;
  bool beyond = false;
  for (size_t c = 0; c < allowed.size(); ++c) {
    if (!allowed[c]) continue;
    if (c >= kMaxCpus) {
      beyond = true;
      continue;
    }
    allowed_ |= uint64_t{1} << c;
    ++count;
  }
  enabled_ = !beyond && count >= 2;
  mask_.store(allowed_, std::memory_order_release);
  if (totals_) last_totals_ = totals_();
}

void WorkerCpus::note(int cpu, int waiting, int64_t handover_ns, int64_t now_ns) {
  if (!enabled_) return;
  if (cpu >= 0 && cpu < kMaxCpus && (waiting >= kDeepWaiting || handover_ns >= kDeepHandoverNs)) {
    deep_[cpu].fetch_add(1, std::memory_order_relaxed);
  }
  int64_t end = window_end_ns_.load(std::memory_order_relaxed);
  if (end == 0) {
    window_end_ns_.compare_exchange_strong(end, now_ns + kWindowNs, std::memory_order_relaxed);
    return;
  }
  // One thread ends each window: the one whose exchange moves its end.
  if (now_ns >= end &&
      window_end_ns_.compare_exchange_strong(end, now_ns + kWindowNs, std::memory_order_relaxed)) {
    end_window();
  }
}

void WorkerCpus::end_window() {
  std::lock_guard lock(end_mu_);
  std::array<uint64_t, kMaxCpus> deep{};
  for (int c = 0; c < kMaxCpus; ++c) deep[c] = deep_[c].exchange(0, std::memory_order_relaxed);
  ReplyTotals window;
  if (totals_) {
    const ReplyTotals now = totals_();
    window = {now.replies - last_totals_.replies, now.backing_bound - last_totals_.backing_bound};
    last_totals_ = now;
  }
  const uint64_t next = decide(allowed_, deep, window);
  if (mask_.exchange(next, std::memory_order_acq_rel) != next) {
    changes_.fetch_add(1, std::memory_order_acq_rel);
  }
}

uint64_t WorkerCpus::decide(uint64_t allowed, const std::array<uint64_t, kMaxCpus>& deep,
                            ReplyTotals replies) {
  if (replies.replies > 0 && replies.backing_bound * 2 >= replies.replies) return allowed;
  uint64_t total = 0;
  for (int c = 0; c < kMaxCpus; ++c) {
    if (allowed & (uint64_t{1} << c)) total += deep[c];
  }
  if (total < kMinDeepRequests) return allowed;
  uint64_t callers = 0;
  for (int c = 0; c < kMaxCpus; ++c) {
    if ((allowed & (uint64_t{1} << c)) && deep[c] * 10 >= total) callers |= uint64_t{1} << c;
  }
  const uint64_t others = allowed & ~callers;
  return others != 0 ? others : allowed;
}

std::vector<bool> affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return {};
  std::vector<bool> cpus(CPU_SETSIZE);
  for (int c = 0; c < CPU_SETSIZE; ++c) cpus[c] = CPU_ISSET(c, &set);
  return cpus;
}

void apply_worker_cpus(const WorkerCpus& cpus) {
  if (!cpus.enabled()) return;
  thread_local uint64_t applied = 0;  // WorkerCpus::changes() when this thread last applied
  const uint64_t changes = cpus.changes();
  if (changes == applied) return;
  applied = changes;
  const uint64_t mask = cpus.mask();
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c = 0; c < WorkerCpus::kMaxCpus; ++c) {
    if (mask & (uint64_t{1} << c)) CPU_SET(c, &set);
  }
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

}  // namespace diskcond::mount
