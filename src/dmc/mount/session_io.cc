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

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

ssize_t read_hook(int fd, void* buf, size_t length, void* userdata) {
  const ssize_t n = read(fd, buf, length);
  if (n > 0) {
    Filesystem& fs = of(userdata);
    fs.killpriv.saw_request(buf, static_cast<size_t>(n));
    if (fs.uring != nullptr) fs.uring->saw_request(buf, static_cast<size_t>(n));
  }
  return n;
}

// A reply's writev, timed: its duration by payload size is what ReplyCopyBound learns from.
ssize_t timed_writev(Filesystem& fs, int fd, struct iovec* iov, int count) {
  size_t bytes = 0;
  for (int i = 0; i < count; ++i) bytes += iov[i].iov_len;
  const int64_t start = monotonic_ns();
  const ssize_t result = writev(fd, iov, count);
  const int64_t end = monotonic_ns();
  if (result == static_cast<ssize_t>(bytes) && bytes >= sizeof(fuse_out_header)) {
    fs.conditioner.reply_copy_bound().record(bytes - sizeof(fuse_out_header), end - start);
  }
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
