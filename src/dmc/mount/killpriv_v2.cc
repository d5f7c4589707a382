#include "dmc/mount/killpriv_v2.h"

#include <linux/fuse.h>
#include <unistd.h>

#include <cerrno>

#include "dmc/mount/filesystem.h"
#include "dmc/mount/fuse_uring.h"

namespace diskcond::mount {
namespace {

Filesystem& of(void* userdata) {
  return *static_cast<Filesystem*>(userdata);
}

// The hooks also serve FUSE over io_uring (fuse_uring.h) when it is on: it sees the INIT, and
// replies to the requests that came through its rings go back through them.
ssize_t read_hook(int fd, void* buf, size_t length, void* userdata) {
  const ssize_t n = read(fd, buf, length);
  if (n > 0) {
    Filesystem& fs = of(userdata);
    fs.killpriv.saw_request(buf, static_cast<size_t>(n));
    if (fs.uring != nullptr) fs.uring->saw_request(buf, static_cast<size_t>(n));
  }
  return n;
}

ssize_t writev_hook(int fd, struct iovec* iov, int count, void* userdata) {
  Filesystem& fs = of(userdata);
  ssize_t result = 0;
  if (fs.uring != nullptr && fs.uring->reply(iov, count, &result)) return result;
  fs.killpriv.patch_reply(iov, count);
  if (fs.uring == nullptr) return writev(fd, iov, count);
  fs.uring->before_init_reply(iov, count);
  result = writev(fd, iov, count);
  const int saved = errno;
  fs.uring->after_init_reply(iov, count, result);
  errno = saved;
  return result;
}

}  // namespace

int KillprivV2::install(fuse_session* se) {
  fuse_custom_io io{};
  io.read = read_hook;
  io.writev = writev_hook;
  return fuse_session_custom_io(se, &io, fuse_session_fd(se)) == 0 ? 0 : -1;
}

void KillprivV2::never_ask() {
  init_done_.store(true, std::memory_order_relaxed);
}

void KillprivV2::saw_request(const void* message, size_t length) {
  if (init_done_.load(std::memory_order_relaxed)) return;
  if (length < sizeof(fuse_in_header) + sizeof(fuse_init_in)) return;
  const auto* header = static_cast<const fuse_in_header*>(message);
  if (header->opcode != FUSE_INIT) return;
  const auto* init = reinterpret_cast<const fuse_init_in*>(header + 1);
  init_unique_ = header->unique;
  offered_.store((init->flags & FUSE_HANDLE_KILLPRIV_V2) != 0, std::memory_order_relaxed);
}

void KillprivV2::patch_reply(struct iovec* iov, int count) {
  if (init_done_.load(std::memory_order_relaxed)) return;
  if (count < 2 || iov[0].iov_len < sizeof(fuse_out_header)) return;
  const auto* header = static_cast<const fuse_out_header*>(iov[0].iov_base);
  if (header->unique != init_unique_ || init_unique_ == 0) return;
  // The INIT reply (libfuse sends it before it reads another request).
  init_done_.store(true, std::memory_order_relaxed);
  constexpr size_t kFlagsEnd = offsetof(fuse_init_out, flags) + sizeof(uint32_t);
  if (header->error != 0 || iov[1].iov_len < kFlagsEnd || !offered_.load()) return;
  static_cast<fuse_init_out*>(iov[1].iov_base)->flags |= FUSE_HANDLE_KILLPRIV_V2;
  enabled_.store(true, std::memory_order_relaxed);
}

}  // namespace diskcond::mount
