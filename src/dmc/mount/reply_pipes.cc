#include "dmc/mount/reply_pipes.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

namespace diskcond::mount {
namespace {

constexpr size_t kPageBytes = 4096;

// The pipe capacity the file's pages over [offset, offset + size) need: a pipe buffer per page.
size_t pages_spanned_bytes(off_t offset, size_t size) {
  const size_t start = static_cast<size_t>(offset) % kPageBytes;
  return (start + size + kPageBytes - 1) / kPageBytes * kPageBytes;
}

void close_pipe(const int fds[2]) {
  close(fds[0]);
  close(fds[1]);
}

}  // namespace

ReplyPipes::Filled::Filled(Filled&& other) noexcept
    : pool_(other.pool_), capacity_(other.capacity_), bytes_(other.bytes_) {
  fds_[0] = other.fds_[0];
  fds_[1] = other.fds_[1];
  other.pool_ = nullptr;
}

ReplyPipes::Filled::~Filled() {
  if (pool_ == nullptr) return;
  // Whatever the reply did not take (it failed, or was never sent) must not reach the next read.
  int left = 0;
  const bool empty = ioctl(fds_[0], FIONREAD, &left) == 0 && left == 0;
  pool_->give_back(Pipe{{fds_[0], fds_[1]}, capacity_}, empty);
}

ReplyPipes::~ReplyPipes() {
  for (const Pipe& p : free_) close_pipe(p.fds);
}

bool ReplyPipes::take(size_t wanted, Pipe* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!free_.empty()) {
    *out = free_.back();
    free_.pop_back();
  } else {
    if (made_ >= kMaxPipes || pipe2(out->fds, O_CLOEXEC) != 0) return false;
    out->capacity = 0;
    ++made_;
  }
  if (out->capacity < wanted) {
    const int got = fcntl(out->fds[0], F_SETPIPE_SZ, static_cast<int>(wanted));
    if (got < 0 || static_cast<size_t>(got) < wanted) {
      close_pipe(out->fds);
      --made_;
      return false;
    }
    out->capacity = static_cast<size_t>(got);
  }
  return true;
}

void ReplyPipes::give_back(Pipe pipe, bool empty) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (empty) {
    free_.push_back(pipe);
    return;
  }
  close_pipe(pipe.fds);
  --made_;
}

ReplyPipes::Filled ReplyPipes::fill(int fd, off_t offset, size_t size, bool* spliced) {
  *spliced = false;
  Filled filled;
  if (size < kMinBytes || size > kMaxBytes) return filled;
  Pipe pipe{};
  if (!take(pages_spanned_bytes(offset, size), &pipe)) return filled;
  filled.pool_ = this;
  filled.fds_[0] = pipe.fds[0];
  filled.fds_[1] = pipe.fds[1];
  filled.capacity_ = pipe.capacity;
  loff_t at = offset;
  while (filled.bytes_ < size) {
    // Non-blocking: the pipe has room for all of it, so a full pipe is a surprise, not a wait.
    const ssize_t n =
        splice(fd, &at, pipe.fds[1], nullptr, size - filled.bytes_, SPLICE_F_NONBLOCK);
    if (n > 0) {
      filled.bytes_ += static_cast<size_t>(n);
    } else if (n == 0) {
      break;  // the end of the file
    } else if (errno != EINTR) {
      filled.bytes_ = 0;
      return Filled{};  // `filled` goes back not empty: its pipe is closed
    }
  }
  *spliced = true;
  return filled;
}

size_t ReplyPipes::pipes_made() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return made_;
}

}  // namespace diskcond::mount
