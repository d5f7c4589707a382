#include "dmc/ideal_device.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
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

// A caller's buffer of `bytes`, which pin_and_release() pins as the kernel pins an O_DIRECT
// caller's (vmsplice(2) takes a reference to each page into a pipe) and lets go of again (the
// pipe emptied into /dev/null). A buffer larger than the pipe (at most
// /proc/sys/fs/pipe-max-size, 1 MiB by default) goes a pipe's worth at a time; only the pinning
// is timed.
class CallerPages {
 public:
  static Result<std::unique_ptr<CallerPages>> make(uint64_t bytes) {
    auto pages = std::unique_ptr<CallerPages>(new CallerPages(bytes));
    if (pages->data_ == nullptr) return make_error(failed("buffer"));
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return make_error(failed("pipe"));
    pages->read_end_.reset(fds[0]);
    pages->write_end_.reset(fds[1]);
    pages->null_.reset(open("/dev/null", O_WRONLY | O_CLOEXEC));
    if (!pages->null_.valid()) return make_error(failed("/dev/null"));
    // The pipe as large as allowed up to the buffer; a smaller one only means more pieces.
    const auto wanted = static_cast<int>(std::min<uint64_t>(bytes, 1 << 20));
    const int capacity = std::max(fcntl(pages->write_end_.get(), F_SETPIPE_SZ, wanted),
                                  fcntl(pages->write_end_.get(), F_GETPIPE_SZ));
    if (capacity <= 0) return make_error(failed("pipe size"));
    pages->piece_ = static_cast<uint64_t>(capacity);
    // Touched, so that pinning finds every page present, as a caller's buffer in use is.
    std::memset(pages->data_.get(), 1, bytes);
    return pages;
  }

  // Pins the buffer, piece by piece; returns the time spent pinning (ns), or -1.
  int64_t pin_and_release() {
    int64_t pinning = 0;
    for (uint64_t at = 0; at < bytes_; at += piece_) {
      const uint64_t length = std::min(piece_, bytes_ - at);
      const int64_t start = now_ns();
      if (!pin(at, length)) return -1;
      pinning += now_ns() - start;
      if (!release(length)) return -1;
    }
    return pinning;
  }

 private:
  explicit CallerPages(uint64_t bytes)
      : bytes_(bytes), data_(static_cast<char*>(std::aligned_alloc(4096, round_up(bytes)))) {}

  static uint64_t round_up(uint64_t bytes) { return (bytes + 4095) / 4096 * 4096; }
  static std::string failed(const char* what) {
    return std::string("ideal device: ") + what + ": " + std::strerror(errno);
  }

  bool pin(uint64_t at, uint64_t length) {
    for (uint64_t done = 0; done < length;) {
      iovec piece{data_.get() + at + done, length - done};
      const ssize_t n = vmsplice(write_end_.get(), &piece, 1, 0);
      if (n <= 0) return false;
      done += static_cast<uint64_t>(n);
    }
    return true;
  }
  bool release(uint64_t length) {
    for (uint64_t done = 0; done < length;) {
      const ssize_t n =
          splice(read_end_.get(), nullptr, null_.get(), nullptr, length - done, SPLICE_F_MOVE);
      if (n <= 0) return false;
      done += static_cast<uint64_t>(n);
    }
    return true;
  }

  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  uint64_t bytes_;
  uint64_t piece_ = 0;
  std::unique_ptr<char, Free> data_;
  posix::UniqueFd read_end_, write_end_, null_;
};

}  // namespace

uint64_t ideal_device_requests(int64_t service_ns, int64_t budget_ns) {
  const int64_t each = std::max<int64_t>(service_ns, 1);
  return static_cast<uint64_t>(std::clamp<int64_t>(budget_ns / each, 200, 20'000));
}

Result<IdealDeviceRun> run_ideal_device(int64_t service_ns, uint64_t requests, bool idle_poll,
                                        uint64_t pinned_bytes) {
  std::unique_ptr<CallerPages> pages;
  if (pinned_bytes > 0) {
    auto made = CallerPages::make(pinned_bytes);
    if (!made.ok()) return make_error(made.error());
    pages = std::move(*made);
  }
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
  run.pinned_bytes = pinned_bytes;
  std::vector<int64_t> waits;
  waits.reserve(requests);
  double pinning_total = 0;
  bool pinned = true;
  int pin_error = 0;  // errno of a failed pinning, before later calls change it
  for (uint64_t i = 0; i < requests && pinned; ++i) {
    const int before = completed.load();
    int64_t pinning = 0;
    if (pages != nullptr) {
      pinning = pages->pin_and_release();
      pinned = pinning >= 0;
      if (!pinned) pin_error = errno;
      pinning = std::max<int64_t>(pinning, 0);
      pinning_total += static_cast<double>(pinning);
    }
    const int64_t start = now_ns();
    issued_at_ns.store(start);
    issued.fetch_add(1);
    wake_one(issued);
    while (completed.load() == before) wait_while_equal(completed, before);
    waits.push_back(now_ns() - start + pinning);
  }
  stop.store(true);
  // A change of `issued` the device cannot miss, even between its check of `stop` and its wait:
  // it serves that one at once (its issue time has passed) and then finds `stop`.
  issued.fetch_add(1);
  wake_one(issued);
  device.join();
  if (!pinned) {
    return make_error(std::string("ideal device: vmsplice: ") + std::strerror(pin_error));
  }
  std::sort(waits.begin(), waits.end());
  run.mean_pin_ns = pinning_total / static_cast<double>(requests);
  double total = 0;
  for (int64_t w : waits) total += static_cast<double>(w);
  run.mean_wait_ns = total / static_cast<double>(requests);
  run.min_wait_ns = waits.front();
  run.p50_wait_ns = waits[waits.size() / 2];
  run.p90_wait_ns = waits[waits.size() * 9 / 10];
  return run;
}

}  // namespace diskcond::dmc
