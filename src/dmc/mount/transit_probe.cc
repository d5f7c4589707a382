#include "dmc/mount/transit_probe.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

#include "posix/thread_name.h"

namespace diskcond::mount {

TransitProbe::TransitProbe(std::string mount_point, ProbeStamp& stamp, TransitBound& bound,
                           const Clock& clock)
    : mount_point_(std::move(mount_point)), stamp_(stamp), bound_(bound), clock_(clock) {}

TransitProbe::~TransitProbe() {
  stop();
}

void TransitProbe::start() {
  thread_ = std::thread([this] { run(); });
}

void TransitProbe::pause() {
  std::unique_lock lock(mu_);
  paused_ = true;
  changed_.wait(lock, [this] { return !in_flight_; });
}

void TransitProbe::resume() {
  std::lock_guard lock(mu_);
  paused_ = false;
}

void TransitProbe::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TransitProbe::run() {
  posix::name_this_thread("dmc-probe");
  // A probe is a request to this daemon's own mount. If the daemon dies (SIGKILL, a crash) while
  // one is in flight, the kernel makes this thread wait for its answer without end, and as long as
  // it holds a descriptor of /dev/fuse the connection is never aborted: the mount would hang every
  // caller. So this thread gets a descriptor table of its own, without /dev/fuse (or anything
  // else of the daemon's): when the others die, the connection aborts and the probe fails.
  if (unshare(CLONE_FILES) == 0) syscall(SYS_close_range, 3U, ~0U, 0U);
  stamp_.tid.store(gettid());
  int probes = 0;
  std::unique_lock lock(mu_);
  for (;;) {
    const auto interval = std::chrono::nanoseconds(probes < kStartBurst ? 1'000'000 : kIntervalNs);
    changed_.wait_for(lock, interval, [this] { return stopping_; });
    if (stopping_) break;
    if (paused_) continue;
    in_flight_ = true;
    lock.unlock();
    const bool recorded = probe();
    lock.lock();
    in_flight_ = false;
    changed_.notify_all();
    if (recorded) ++probes;
  }
  stamp_.tid.store(0);
}

bool TransitProbe::probe() {
  const int fd = open(mount_point_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool recorded = false;
  for (int i = 0; i < kBurst; ++i) {
    const int64_t transit = request_once(fd);
    if (transit == kUnstamped) continue;
    if (transit < 0) break;  // the mount is gone or covered: the rest would not reach it either
    bound_.record(transit);
    recorded = true;
  }
  close(fd);
  return recorded;
}

int64_t TransitProbe::request_once(int fd) {
  const int before = stamp_.requests.load(std::memory_order_acquire);
  struct statx stx;
  const int64_t start = clock_.now_ns();
  const int r = statx(fd, "", AT_EMPTY_PATH | AT_STATX_FORCE_SYNC, STATX_BASIC_STATS, &stx);
  const int64_t end = clock_.now_ns();
  // Exactly one probe request served, or the sample means nothing (another mount on top, the
  // mount gone, or a second request such as a permission check's getattr).
  if (r != 0 || stamp_.requests.load(std::memory_order_acquire) != before + 1) return -1;
  if (require_kernel_sent_ && !stamp_.kernel_sent.load(std::memory_order_relaxed)) {
    return kUnstamped;
  }
  const int64_t handler = stamp_.replied_ns.load(std::memory_order_relaxed) -
                          stamp_.arrival_ns.load(std::memory_order_relaxed);
  return (end - start) - handler;
}

}  // namespace diskcond::mount
