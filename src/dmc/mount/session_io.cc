#include "dmc/mount/session_io.h"

#include <linux/fuse.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "dmc/mount/filesystem.h"
#include "dmc/mount/fuse_uring.h"

namespace diskcond::mount {
namespace {

Filesystem& of(void* userdata) {
  return *static_cast<Filesystem*>(userdata);
}

int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Reads a request; one read in CopyBound::kSampleEvery per thread records its thread CPU
// time (the kernel's copy of the request, not the time blocked waiting for one) by the bytes
// after a write's headers.
ssize_t read_hook(int fd, void* buf, size_t length, void* userdata) {
  Filesystem& fs = of(userdata);
  thread_local unsigned reads = 0;
  const bool timed = fs.conditioner.copy_lead_enabled() && ++reads % CopyBound::kSampleEvery == 0;
  const int64_t cpu_before = timed ? thread_cpu_ns() : 0;
  const ssize_t n = read(fd, buf, length);
  if (timed && n > 0) {
    const int saved = errno;
    const int64_t cpu = thread_cpu_ns() - cpu_before;
    const auto bytes = static_cast<uint64_t>(n);
    fs.conditioner.request_copy_bound().record(
        bytes > CopyBound::kWriteHeaderBytes ? bytes - CopyBound::kWriteHeaderBytes : 0, cpu);
    errno = saved;
  }
  if (n > 0) {
    fs.killpriv.saw_request(buf, static_cast<size_t>(n));
    if (fs.uring != nullptr) fs.uring->saw_request(buf, static_cast<size_t>(n));
  }
  return n;
}

// A reply's writev; every one carrying more than CopyBound::kSlotBytes, and one smaller in
// CopyBound::kSampleEvery per thread, records its thread CPU time (the copy into the caller and
// the pages' release, not time lost to preemption) by its payload. Timing every large reply makes
// its minimum reach the fast copies sooner (a sample's minimum only approaches theirs from above).
ssize_t timed_writev(Filesystem& fs, int fd, struct iovec* iov, int count) {
  thread_local unsigned writes = 0;
  size_t bytes = 0;
  for (int i = 0; i < count; ++i) bytes += iov[i].iov_len;
  const bool large = bytes > sizeof(fuse_out_header) + CopyBound::kSlotBytes;
  if (!large && ++writes % CopyBound::kSampleEvery != 0) return writev(fd, iov, count);
  const int64_t cpu_before = thread_cpu_ns();
  const ssize_t result = writev(fd, iov, count);
  const int saved = errno;
  const int64_t cpu = thread_cpu_ns() - cpu_before;
  if (result == static_cast<ssize_t>(bytes) && bytes >= sizeof(fuse_out_header)) {
    fs.conditioner.reply_copy_bound().record(bytes - sizeof(fuse_out_header), cpu);
  }
  errno = saved;
  return result;
}

ssize_t writev_hook(int fd, struct iovec* iov, int count, void* userdata) {
  Filesystem& fs = of(userdata);
  ssize_t result = 0;
  if (fs.uring != nullptr && fs.uring->reply(iov, count, &result)) return result;
  fs.killpriv.patch_reply(iov, count);
  if (fs.uring == nullptr) return timed_writev(fs, fd, iov, count);
  fs.uring->before_init_reply(iov, count);
  result = writev(fd, iov, count);
  const int saved = errno;
  fs.uring->after_init_reply(iov, count, result);
  errno = saved;
  return result;
}

}  // namespace

int install_session_io(fuse_session* se) {
  fuse_custom_io io{};
  io.read = read_hook;
  io.writev = writev_hook;
  return fuse_session_custom_io(se, &io, fuse_session_fd(se)) == 0 ? 0 : -1;
}

}  // namespace diskcond::mount
