// Sends FUSE replies at given times, from threads of their own, so that no FUSE worker ever sleeps.
//
// A worker does its backing I/O, then calls at(due, reply): a reply already due runs at once on
// the worker; a later one is queued on a lane, a min-heap that one thread serves with timed
// condition-variable waits on CLOCK_MONOTONIC (1 ns timer slack). Whatever the reply needs (read
// data buffers included) lives in the Reply closure until it has run.
//
// Lanes: one whose thread runs on any CPU at real-time priority, and, created the first time a
// reply asks for it, one per CPU whose thread is pinned to that CPU (at_cpu(): the caller's CPU,
// caller_cpu.h), so that the reply wakes the caller on the CPU it sleeps on rather than through
// an interrupt to another, halted one. That thread runs at SCHED_IDLE: the kernel places a woken
// thread on a CPU that runs only SCHED_IDLE work as on an idle one (select_idle_sibling), where a
// real-time sender would make it look busy and send the caller to the other CPU (measured on the
// 2-core VM: a pinned SCHED_FIFO sender gained nothing for an unpinned fio, the caller moving
// CPUs at every reply). The lowest priority can starve behind other work on that CPU, so each
// such reply is also queued on the unpinned lane kIdleLaneGraceNs later, and whichever lane
// comes to it first sends it, exactly once. A CPU outside the daemon's affinity mask gets the
// unpinned lane alone. Each lane orders its own replies; replies on different lanes are
// independent, as a disk's completions are.
//
// A short wait asked for by the thread handing the reply over (kThisThread: the Conditioner asks
// for a lone request's reply due within kMaxSpinWaitNs) is spun by that thread, a FUSE worker, when
// no other reply waits, and sent from it: the worker woken by a queue-depth-1 caller mostly runs
// on that caller's CPU, so the reply wakes the caller where it sleeps with no other thread to wake
// first, as a block device completes a request on the CPU that submitted it. Queued on the
// unpinned lane, it woke that lane's thread, which slept to a timer and spun the rest, and then
// the caller. At most one thread spins at a time (it counts as a waiting reply, so a second short
// wait goes to the lane and routes_by_cpu() sees it), for less than kShortWaitNs. Measured:
// docs/conditioner.md "Short waits".
//
// Wake-up compensation: a timed wait returns some tens of microseconds after its deadline (more
// on a busy VM, and more the longer the CPU slept). Each lane's thread tracks that lateness per
// band of wait length (WakeAhead: an average that leans late, capped at kMaxWakeAheadNs) and
// asks to wake that much before the due time, then spins the rest, so replies go out at their
// due time instead of always late. A reply is never sent before its due time (the one exception:
// drain(), when the mount goes away). The spin lasts at most kMaxWakeAheadNs.
//
// The clock may stand still (mount/device_clock.h: the device's clock during a stall): due times
// are on it, and the threads' timed waits end at the wall time it reaches them
// (Clock::wall_ns_when); while it is held until released they wait for poke().
//
// Every reply's lateness (the time it started to be sent minus its due time) goes into one
// LatenessHistogram, for status.
//
// Locking: lanes_mu_ (creating a lane, poke, drain), then a lane's mutex, held while its thread
// reads the clock, which takes the fault rules' mutex while a stall rule is live (DeviceClock;
// that mutex is a leaf); replies run with no lock held.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/clock.h"
#include "dmc/mount/lateness_histogram.h"
#include "dmc/mount/wake_ahead.h"

namespace diskcond::mount {

// What the Conditioner hands a reply and its due time to: the ReplyScheduler, or a fake in tests
// that records them.
class ReplyTimer {
 public:
  using Reply = std::function<void()>;
  static constexpr int kAnyCpu = -1;
  // The thread handing the reply over may wait for it itself, spinning, when the wait is shorter
  // than kShortWaitNs (and, for the ReplyScheduler, no other reply waits); else any CPU.
  static constexpr int kThisThread = -2;
  // A reply due sooner than this after it is handed over is not routed to its caller's CPU: that
  // CPU's lane thread would not be scheduled there in time (Conditioner::kMinRoutedWaitNs).
  static constexpr int64_t kShortWaitNs = 50'000;
  // The longest wait the Conditioner asks a worker to spin for (kThisThread). Measured with fio
  // 4 KiB QD1 reads (docs/conditioner.md "Short waits"): waits of 20-30 us (SATA III SSD) gain
  // about 11% spinning; SATA II SSD's, about 50 us of which some fell below kShortWaitNs, lost
  // 4% when those were spun instead of sent from the caller's CPU's lane.
  static constexpr int64_t kMaxSpinWaitNs = 35'000;
  virtual ~ReplyTimer() = default;
  // Runs `reply` once, at `due_ns` or as soon after as possible, never before; if it has to wait,
  // from a thread on CPU `cpu` when it can (kAnyCpu: any CPU; kThisThread: this one, above).
  // Thread-safe.
  virtual void at_cpu(int64_t due_ns, int cpu, Reply reply) = 0;
  // Whether a reply queued now would use its CPU (at_cpu()), so that the caller may skip finding
  // it out.
  virtual bool routes_by_cpu() const { return false; }
  // Replies handed over and not yet sent.
  virtual int waiting() const { return 0; }
  void at(int64_t due_ns, Reply reply) { at_cpu(due_ns, kAnyCpu, std::move(reply)); }
};

class ReplyScheduler final : public ReplyTimer {
 public:
  // `clock` must be CLOCK_MONOTONIC-based (MonotonicClock) unless the test never waits.
  explicit ReplyScheduler(const Clock& clock);
  ~ReplyScheduler();  // drain()
  ReplyScheduler(const ReplyScheduler&) = delete;
  ReplyScheduler& operator=(const ReplyScheduler&) = delete;

  // ReplyTimer. A reply already due runs at once on the caller; one for kThisThread due within
  // kShortWaitNs, on the caller once it has spun until then, unless another reply waits.
  void at_cpu(int64_t due_ns, int cpu, Reply reply) override;
  // While fewer replies wait than the daemon has CPUs: callers that sleep one request at a time
  // (queue depth 1), whose CPUs halt while they wait. With more (a deep queue, CPUs kept busy) a
  // second copy of every reply costs CPU time and gains nothing (Slow SSD 4 KiB QD32 reads,
  // 2-core VM: 61k IOPS without the lanes, 50k with them for every reply).
  bool routes_by_cpu() const override;
  int waiting() const override { return waiting_.load(std::memory_order_relaxed); }
  // The clock has changed its mind (a stall released or removed): the threads look again at when
  // their next reply is due.
  void poke();
  // Sends every queued reply now (in due order per lane) and stops the threads; later at() calls
  // reply at once. Used when the mount goes away: nothing acknowledged may be left unsent.
  void drain();
  // Entries on the lanes' heaps, for tests: a reply queued on two lanes counts until both copies
  // have left.
  size_t queued() const;
  // Worst lateness seen by the threads (actual send - due), for the tests and status.
  int64_t max_lateness_ns() const;
  // Percentiles of every reply's lateness so far (those sent at once by at() included).
  LatenessSummary lateness() const { return lateness_.summary(); }
  // The largest wake-up compensation of the bands the lanes last learned from
  // (WakeAhead::last_ns).
  int64_t wake_ahead_ns() const;
  // Lanes pinned to a CPU so far.
  size_t pinned_lanes() const;
  // Replies the thread handing them over (kThisThread) spun for and sent, since start.
  uint64_t spun_replies() const { return spun_.load(std::memory_order_relaxed); }

  static constexpr int64_t kMaxWakeAheadNs = 150'000;
  // How long after its due time the unpinned lane sends a reply that a CPU's lane has not.
  static constexpr int64_t kIdleLaneGraceNs = 20'000;

 private:
  class Lane;  // a heap of replies and the thread that sends them (reply_scheduler.cc)
  // The lane for `cpu`, created if need be; the unpinned one for kAnyCpu, a CPU the daemon may
  // not run on, or once drained.
  Lane& lane_for(int cpu);
  template <class F>
  void each_lane(F f) const;
  // Spins the calling thread until the clock reaches `due_ns` when no other reply waits and the
  // clock gets there within kShortWaitNs of wall time (no stall holds it); returns the clock's
  // time then, before `due_ns` when it did not spin or a stall began meanwhile.
  int64_t spin_for_short_wait(int64_t due_ns, int64_t now);

  const Clock& clock_;
  LatenessHistogram lateness_;  // lock-free, shared by the lanes
  std::atomic<uint64_t> spun_{0};
  std::atomic<int> waiting_{0};  // replies queued (or spun for) and not yet sent, over all lanes
  std::unique_ptr<Lane> any_cpu_;
  mutable std::mutex lanes_mu_;
  std::vector<bool> allowed_cpus_;                // the daemon's affinity mask; constant
  int routing_limit_ = 0;                         // CPUs in it; constant
  std::vector<std::unique_ptr<Lane>> pinned_;     // by CPU; guarded by lanes_mu_
  std::unique_ptr<std::atomic<Lane*>[]> by_cpu_;  // the same, lock-free for at_cpu()
  bool drained_ = false;                          // guarded by lanes_mu_
};

}  // namespace diskcond::mount
