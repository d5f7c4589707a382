#include "dmc/ideal_device.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <system_error>
#include <thread>
#include <vector>

#include "posix/cpu_latency.h"
#include "posix/unique_fd.h"

namespace diskcond::dmc {
namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A futex word: the caller and the device each sleep on one while the other has nothing for
// them. std::atomic<int>::wait would spin and yield first, which is not how a caller of pread()
// waits; the raw futex is.
void wait_while_equal(std::atomic<int>& word, int value) {
  syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAIT_PRIVATE, value, nullptr, nullptr, 0);
}

void wake_one(std::atomic<int>& word) {
  syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

static_assert(sizeof(std::atomic<int>) == sizeof(int) && std::atomic<int>::is_always_lock_free,
              "a futex word must be a plain int");

}  // namespace

uint64_t ideal_device_requests(int64_t service_ns, int64_t budget_ns) {
  const int64_t each = std::max<int64_t>(service_ns, 1);
  return static_cast<uint64_t>(std::clamp<int64_t>(budget_ns / each, 200, 20'000));
}

Result<IdealDeviceRun> run_ideal_device(int64_t service_ns, uint64_t requests, bool idle_poll) {
  const posix::UniqueFd latency(idle_poll ? posix::request_idle_polling() : -1);
  std::atomic<int> issued{0}, completed{0};
  std::atomic<int64_t> issued_at_ns{0};
  std::atomic<bool> stop{false};
  std::thread device;
  try {
    device = std::thread([&] {
      for (;;) {
        int seen;
        while ((seen = issued.load()) == completed.load()) {
          if (stop.load()) return;
          wait_while_equal(issued, seen);
        }
        const int64_t until = issued_at_ns.load() + service_ns;
        while (now_ns() < until) {
        }
        completed.fetch_add(1);
        wake_one(completed);
      }
    });
  } catch (const std::system_error& e) {
    return make_error(std::string("cannot start the ideal device's thread: ") + e.what());
  }
  IdealDeviceRun run;
  run.service_ns = service_ns;
  run.requests = requests;
  run.idle_poll_held = latency.valid();
  std::vector<int64_t> waits;
  waits.reserve(requests);
  for (uint64_t i = 0; i < requests; ++i) {
    const int before = completed.load();
    const int64_t start = now_ns();
    issued_at_ns.store(start);
    issued.fetch_add(1);
    wake_one(issued);
    while (completed.load() == before) wait_while_equal(completed, before);
    waits.push_back(now_ns() - start);
  }
  stop.store(true);
  // A change of `issued` the device cannot miss, even between its check of `stop` and its wait:
  // it serves that one at once (its issue time has passed) and then finds `stop`.
  issued.fetch_add(1);
  wake_one(issued);
  device.join();
  std::sort(waits.begin(), waits.end());
  double total = 0;
  for (int64_t w : waits) total += static_cast<double>(w);
  run.mean_wait_ns = total / static_cast<double>(requests);
  run.min_wait_ns = waits.front();
  run.p50_wait_ns = waits[waits.size() / 2];
  run.p90_wait_ns = waits[waits.size() * 9 / 10];
  return run;
}

}  // namespace diskcond::dmc
