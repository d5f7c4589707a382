// Data requests reach the model in the order the kernel sent them (issue 18 item 1).
//
// A large O_DIRECT read or write reaches the daemon as several requests the kernel sends one after
// another (1 MiB each: a 4 MiB read is four), and two workers can hand them to the model in either
// order. The model serves commands in the order they are submitted (core/disk_model.h), so on an
// HDD profile a piece that overtakes the one sent before it makes the pretend head seek back to
// that one and forth again: fio 4 MiB sequential O_DIRECT reads at queue depth 1 measured 128.9
// and 138.1 MiB/s on "7200 HDD" for its 150 (72 and 39 of about 800 commands overtaken).
//
// The kernel's send stamps (send_stamps.h) name each request, with its opcode, before any worker
// can read it. Before a data request reaches the model (Conditioner::begin), wait_for_earlier()
// looks at the requests sent just before it: while one of them is a read or a write that has not
// reached the model (reached()), the worker sleeps on a futex that reached() wakes, kMaxWaitNs at
// most in all. The kernel hands requests to workers in the order it sent them, so each of those
// is already in another worker's hands; the wait ends when the last of them gets there, or at
// kMaxWaitNs for one that never will (interrupted, refused before the model) or is slow to. This
// is the one wait a worker makes, and it is for order, not for the model's time: every request's
// arrival stays the kernel's send, so a reply is due at the same model time, which on an HDD
// (milliseconds a piece) the wait does not reach. Sleeping rather than spinning leaves the CPU to
// the worker being waited for (measured: sched_yield in a loop made reads wait 180-310 us on
// average, the futex 51-95 us).
//
// A request counts as reached once its handler has charged all its model commands
// (Conditioner::charged, before its backing I/O), or when its worker ends it (Conditioner::finish)
// or reads its next request, whichever comes first. (Counting it at its first charge let a
// request's later pieces interleave with the next request's: a fresh-clone run had 2 commands
// overtaken for 1 wait that ran out.)
//
// Thread-safe: every member is an atomic; the hot path takes no lock and allocates nothing.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "dmc/mount/send_stamps.h"

namespace diskcond::mount {

class SendOrder {
 public:
  // How far back a request looks: requests sent at most kWindowNs before it, at most kLookBack
  // of them (a 64 MiB O_DIRECT read is 64 requests of 1 MiB), and the longest it waits for them
  // in all (CLOCK_MONOTONIC). Both are about what an HDD's seek back costs the caller (the built-in
  // HDDs' access time is 12.5-52 ms): waiting is no worse than letting the piece through. On a busy
  // machine the kernel sent a 4 MiB write's next piece 1.4-1.7 ms after the one before, whose
  // worker had not got it to the model yet (a 1 ms window let both through, overtaken without a
  // timeout; MountSendOrder after the mount tests before it: 1 run in 6, then 1 in 8), and an
  // earlier write's worker waited for a CPU for more than 2 ms (3 waits of 40 ran out at 2 ms).
  static constexpr int kLookBack = 64;
  static constexpr int64_t kWindowNs = 10'000'000;
  static constexpr int64_t kMaxWaitNs = 10'000'000;

  // `stamps` outlives this. `max_wait_ns`: kMaxWaitNs but in tests.
  explicit SendOrder(const SendStampTable& stamps, int64_t max_wait_ns = kMaxWaitNs)
      : stamps_(stamps), max_wait_ns_(max_wait_ns) {}

  // Request `unique` has reached the model, or never will (its handler is done).
  void reached(uint64_t unique);
  // The request sent before `unique` (within the window above) that is a read or a write the
  // model has not seen yet; 0 when there is none. `unique`'s own stamp must be known (else 0).
  uint64_t earlier_unreached(uint64_t unique) const;

  enum class Wait { kNone, kWaited, kTimedOut };
  // Yields until earlier_unreached(unique) is 0, max_wait_ns at most; counts what happened.
  Wait wait_for_earlier(uint64_t unique);

  // Since the mount started: requests that waited, those whose wait ran out, and the time they
  // waited in all (CLOCK_MONOTONIC).
  uint64_t waits() const { return waits_.load(std::memory_order_relaxed); }
  uint64_t timeouts() const { return timeouts_.load(std::memory_order_relaxed); }
  int64_t waited_ns() const { return waited_ns_.load(std::memory_order_relaxed); }

 private:
  bool has_reached(uint64_t unique) const;

  const SendStampTable& stamps_;
  const int64_t max_wait_ns_;
  std::array<std::atomic<uint64_t>, SendStampTable::kSlots> reached_{};  // by slot_of(unique)
  std::atomic<uint64_t> waits_{0};
  std::atomic<uint64_t> timeouts_{0};
  std::atomic<int64_t> waited_ns_{0};
  std::atomic<uint32_t> waiting_{0};     // workers in wait_for_earlier()
  std::atomic<uint32_t> generation_{0};  // bumped (and waiters woken) by reached() while any wait
};

}  // namespace diskcond::mount
