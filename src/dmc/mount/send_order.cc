#include "dmc/mount/send_order.h"

#include <linux/fuse.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>

#include "core/clock.h"

namespace diskcond::mount {
namespace {

bool is_data(uint32_t opcode) {
  return opcode == FUSE_READ || opcode == FUSE_WRITE;
}

// Sleeps while `word` reads `expected`, `timeout_ns` at most (FUTEX_WAIT: returns at once if it
// no longer does, or on a wake or a signal).
void futex_wait(std::atomic<uint32_t>& word, uint32_t expected, int64_t timeout_ns) {
  const timespec timeout{static_cast<time_t>(timeout_ns / 1'000'000'000),
                         static_cast<long>(timeout_ns % 1'000'000'000)};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &timeout,
          nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

}  // namespace

void SendOrder::reached(uint64_t unique) {
  if (unique == 0) return;
  // Sequentially consistent, with the waiters' count: either a waiter sees this mark when it
  // checks, or this sees the waiter and wakes it.
  reached_[SendStampTable::slot_of(unique)].store(unique);
  if (waiting_.load() == 0) return;
  generation_.fetch_add(1);
  futex_wake_all(generation_);
}

bool SendOrder::has_reached(uint64_t unique) const {
  return reached_[SendStampTable::slot_of(unique)].load() == unique;
}

uint64_t SendOrder::earlier_unreached(uint64_t unique) const {
  const int64_t sent = stamps_.sent(unique).sent_ns;
  if (sent <= 0) return 0;
  // The kernel numbers requests in steps of 2. A number without a stamp is skipped: forgets take
  // numbers as a worker reads them and never pass the tracepoint.
  for (uint64_t back = 1; back <= kLookBack && 2 * back < unique; ++back) {
    const uint64_t earlier = unique - 2 * back;
    const SentRequest request = stamps_.sent(earlier);
    if (request.sent_ns <= 0) continue;
    if (request.sent_ns < sent - kWindowNs) break;
    if (is_data(request.opcode) && !has_reached(earlier)) return earlier;
  }
  return 0;
}

SendOrder::Wait SendOrder::wait_for_earlier(uint64_t unique) {
  if (earlier_unreached(unique) == 0) return Wait::kNone;
  waits_.fetch_add(1, std::memory_order_relaxed);
  waiting_.fetch_add(1);
  const int64_t start = monotonic_now_ns();
  Wait result = Wait::kTimedOut;
  int64_t now = start;
  while (true) {
    const uint32_t generation = generation_.load();
    if (earlier_unreached(unique) == 0) {
      result = Wait::kWaited;
      break;
    }
    if (now - start >= max_wait_ns_) break;
    // Asleep, so that the worker with the earlier request gets this CPU if it needs it.
    futex_wait(generation_, generation, max_wait_ns_ - (now - start));
    now = monotonic_now_ns();
  }
  waiting_.fetch_sub(1);
  if (result == Wait::kTimedOut) timeouts_.fetch_add(1, std::memory_order_relaxed);
  waited_ns_.fetch_add(now - start, std::memory_order_relaxed);
  return result;
}

}  // namespace diskcond::mount
