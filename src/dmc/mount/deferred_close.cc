#include "dmc/mount/deferred_close.h"

#include <unistd.h>

#include <algorithm>
#include <vector>

#include "posix/thread_name.h"

namespace diskcond::mount {

DeferredClose::~DeferredClose() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (const auto& [fd, arrival] : queue_) close(fd);
}

void DeferredClose::close_later(int fd) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() < max_pending_ && !stop_) {
      const auto now = Clock::now();
      queue_.emplace_back(fd, now);
      last_arrival_ = now;
      if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
      // A waiting thread with older descriptors wakes at their time and looks again; waking
      // it for every arrival of a burst would cost a context switch each.
      if (queue_.size() == 1) wake_.notify_one();
      return;
    }
  }
  close(fd);
}

void DeferredClose::drain() {
  std::vector<int> mine;
  std::unique_lock lock(mu_);
  for (const auto& [fd, arrival] : queue_) mine.push_back(fd);
  queue_.clear();
  idle_.wait(lock, [this] { return !closing_; });  // the one the thread took before this call
  lock.unlock();
  for (int fd : mine) close(fd);
}

size_t DeferredClose::pending() const {
  std::lock_guard lock(mu_);
  return queue_.size() + (closing_ ? 1 : 0);
}

DeferredClose::Clock::time_point DeferredClose::due_locked() const {
  return std::min(last_arrival_ + quiet_, queue_.front().second + max_delay_);
}

void DeferredClose::run() {
  posix::name_this_thread("dmc-close");
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    if (!stop_ && Clock::now() < due_locked()) {
      wake_.wait_until(lock, due_locked());  // an arrival moves the time: look again
      continue;
    }
    const int fd = queue_.front().first;
    queue_.pop_front();
    closing_ = true;
    lock.unlock();
    close(fd);
    lock.lock();
    closing_ = false;
    idle_.notify_all();
  }
}

}  // namespace diskcond::mount
