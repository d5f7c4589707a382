#include "dmc/mount/idle_poll.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "posix/cpu_latency.h"
#include "posix/thread_name.h"
#include "posix/unique_fd.h"

namespace diskcond::mount {
namespace {

class DeviceHolder final : public CpuLatencyHolder {
 public:
  int hold() override {
    const int fd = posix::request_idle_polling();
    if (fd < 0) return fd;
    fd_.reset(fd);
    return 0;
  }
  void release() override { fd_.reset(); }

 private:
  posix::UniqueFd fd_;
};

}  // namespace

std::unique_ptr<CpuLatencyHolder> cpu_latency_device() {
  return std::make_unique<DeviceHolder>();
}

int64_t idle_poll_release_in_ns(int64_t now_ns, int64_t last_busy_ns, int64_t linger_ns) {
  return std::max<int64_t>(last_busy_ns + linger_ns - now_ns, 0);
}

IdlePoll::IdlePoll(const Clock& clock, std::unique_ptr<CpuLatencyHolder> holder, int64_t linger_ns)
    : clock_(clock), holder_(std::move(holder)), linger_ns_(linger_ns) {
  if (int r = holder_->hold(); r < 0) {
    error_ = -r;
    return;
  }
  holder_->release();
  thread_ = std::thread([this] { run(); });
}

IdlePoll::~IdlePoll() {
  stop();
}

void IdlePoll::busy(int64_t now_ns) {
  if (error_ != 0) return;
  last_busy_ns_.store(now_ns, std::memory_order_relaxed);
  if (held_.load(std::memory_order_relaxed)) return;
  if (wanted_.exchange(true)) return;  // the thread has been woken already
  std::lock_guard<std::mutex> lock(mu_);
  wake_.notify_one();
}

void IdlePoll::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

IdlePollState IdlePoll::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  IdlePollState s;
  s.enabled = error_ == 0;
  s.error = error_;
  s.held = held_.load(std::memory_order_relaxed);
  s.holds = holds_;
  s.held_ns = held_total_ns_ + (s.held ? clock_.now_ns() - held_since_ns_ : 0);
  return s;
}

void IdlePoll::run() {
  posix::name_this_thread("dmc-idle-poll");
  std::unique_lock<std::mutex> lock(mu_);
  const auto withdraw = [this] {
    holder_->release();
    held_.store(false, std::memory_order_relaxed);
    held_total_ns_ += clock_.now_ns() - held_since_ns_;
  };
  while (!stopping_) {
    if (!held_.load(std::memory_order_relaxed)) {
      wake_.wait(lock, [this] { return stopping_ || wanted_.load(); });
      if (stopping_) break;
      if (holder_->hold() == 0) {  // a refusal now: the next busy() tries again
        held_.store(true, std::memory_order_relaxed);
        held_since_ns_ = clock_.now_ns();
        ++holds_;
      }
      wanted_.store(false);
      continue;
    }
    const int64_t wait_ns = idle_poll_release_in_ns(
        clock_.now_ns(), last_busy_ns_.load(std::memory_order_relaxed), linger_ns_);
    if (wait_ns == 0) {
      withdraw();
      continue;
    }
    wake_.wait_for(lock, std::chrono::nanoseconds(wait_ns));
  }
  if (held_.load(std::memory_order_relaxed)) withdraw();
}

}  // namespace diskcond::mount
