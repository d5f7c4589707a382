// Which CPUs the FUSE workers run on: off the CPUs that deep-queue callers submit from.
//
// A caller at queue depth 1 sleeps while its request is served, so a worker on its CPU costs it
// nothing (and finds that CPU's caches warm). A caller that keeps many requests in flight (fio or
// rawio with io_uring at QD32, a database's I/O threads) goes on running after each send, to reap
// replies and send more; a worker woken onto its CPU then takes that CPU from it, and the
// caller's replies wait for it while the pretend device runs dry. Measured on the 2-core VM with
// fio 4 KiB random reads at QD32 on SATA II SSD (docs/conditioner.md "Deep queues: the caller's
// CPU"): fio was preempted by the daemon's threads 13% of the time, and the model's device sat
// idle whenever most of the 32 requests were in fio's hands, replied but not yet sent again;
// 66.8k IOPS of the model's 69.1k with the daemon and fio sharing both CPUs, 68.7k with the
// daemon on one and fio on the other.
//
// So every window of kWindowNs, WorkerCpus counts the requests sent while at least
// kDeepWaiting replies were waiting in the reply scheduler, by the CPU they were sent from (the
// kernel's send stamps, send_stamps.h). When there were at least kMinDeepRequests, the CPUs that
// sent a tenth of them or more are the deep callers' CPUs, and the workers' CPUs are the daemon's
// others; when that leaves none (deep callers on every CPU), or the window had too few deep
// requests, the workers may run on all of the daemon's CPUs again, as they do at start. So they
// may too when half the window's replies or more were backing-bound (their backing I/O ended after
// the model's time): then the daemon, not the model, paces the replies (the mount's floor: PCIe 2
// SSD at QD128 fell from 173k to 153k IOPS with its workers on one CPU) and needs every CPU.
//
// Each worker applies the current set to itself before its next read of /dev/fuse
// (apply_worker_cpus()), one atomic load per request when nothing changed. Only CPUs below
// kMaxCpus are tracked; a daemon allowed any CPU beyond leaves its workers alone. Thread-safe; the
// clock is the caller's. One WorkerCpus per process: apply_worker_cpus() remembers per thread what
// it applied last.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace diskcond::mount {

// Replies counted since start (Conditioner::replies, Conditioner::backing_bound).
struct ReplyTotals {
  uint64_t replies = 0;
  uint64_t backing_bound = 0;
};

class WorkerCpus {
 public:
  static constexpr int kMaxCpus = 64;
  static constexpr int64_t kWindowNs = 50'000'000;
  static constexpr int kDeepWaiting = 8;
  static constexpr int64_t kDeepHandoverNs = 100'000;
  static constexpr uint64_t kMinDeepRequests = 500;  // 10,000 per second

  // `allowed`: the daemon's CPUs (sched_getaffinity), indexed by CPU number; `totals`: the
  // replies so far, asked once a window (none: no reply counts as backing-bound).
  explicit WorkerCpus(const std::vector<bool>& allowed,
                      std::function<ReplyTotals()> totals = nullptr);

  // A request sent from `cpu` (-1: not known) has been read at `now_ns`, `handover_ns` after the
  // kernel sent it, while `waiting` replies waited in the reply scheduler. Ends the window when it
  // is over.
  void note(int cpu, int waiting, int64_t handover_ns, int64_t now_ns);

  // The workers' CPUs, one bit per CPU; changes() counts the changes of it.
  uint64_t mask() const { return mask_.load(std::memory_order_acquire); }
  uint64_t changes() const { return changes_.load(std::memory_order_acquire); }
  // Whether the workers are off some of the daemon's CPUs now.
  bool narrowed() const { return mask() != allowed_; }
  // Whether the policy can work here (every allowed CPU below kMaxCpus, at least two of them).
  bool enabled() const { return enabled_; }

  // The workers' CPUs for a window that counted `deep` requests by CPU and sent `replies`: the
  // pure decision above.
  static uint64_t decide(uint64_t allowed, const std::array<uint64_t, kMaxCpus>& deep,
                         ReplyTotals replies = {});

 private:
  void end_window();

  bool enabled_ = false;
  uint64_t allowed_ = 0;
  std::function<ReplyTotals()> totals_;
  std::mutex end_mu_;        // one window ends at a time (a thread may be preempted in it)
  ReplyTotals last_totals_;  // at the end of the last window; guarded by end_mu_
  std::atomic<uint64_t> mask_{0};
  std::atomic<uint64_t> changes_{0};
  std::atomic<int64_t> window_end_ns_{0};  // 0: no window begun
  std::array<std::atomic<uint64_t>, kMaxCpus> deep_{};
};

// The calling thread's CPUs (sched_getaffinity), indexed by CPU number; empty if unknown.
std::vector<bool> affinity_cpus();

// Moves the calling thread to `cpus`' current set if it changed since this thread last did
// (pthread_setaffinity_np); nothing while `cpus` is disabled. For the FUSE workers.
void apply_worker_cpus(const WorkerCpus& cpus);

}  // namespace diskcond::mount
