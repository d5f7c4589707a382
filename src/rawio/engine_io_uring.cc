// io_uring via liburing: one ring per worker with `depth` entries; queue() fills an SQE,
// submit() enters the kernel once for the whole batch, reap() waits for and drains CQEs.
#include <fmt/format.h>
#include <liburing.h>
#include <string.h>

#include "rawio/engine.h"

namespace diskcond::rawio {
namespace {

class IoUringEngine final : public Engine {
 public:
  ~IoUringEngine() override {
    if (ready_) io_uring_queue_exit(&ring_);
  }
  std::string_view name() const override { return "io_uring"; }
  EngineCaps caps() const override { return {false, true}; }

  Status open(int fd, unsigned depth) override {
    fd_ = fd;
    int rc = io_uring_queue_init(depth, &ring_, 0);
    if (rc < 0) return make_error(fmt::format("io_uring_queue_init({}): {}", depth, strerror(-rc)));
    ready_ = true;
    return ok_status();
  }

  void queue(const Transfer& t) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);  // never null: at most `depth` outstanding
    if (t.write) {
      io_uring_prep_write(sqe, fd_, t.buffer, t.length, t.offset);
    } else {
      io_uring_prep_read(sqe, fd_, t.buffer, t.length, t.offset);
    }
    io_uring_sqe_set_data64(sqe, t.slot);
  }

  int submit() override {
    int rc = io_uring_submit(&ring_);
    return rc < 0 ? rc : 0;
  }

  int reap(unsigned min, std::span<Completion> out) override {
    unsigned got = 0;
    while (got < out.size()) {
      io_uring_cqe* cqe = nullptr;
      int rc = got < min ? io_uring_wait_cqe(&ring_, &cqe) : io_uring_peek_cqe(&ring_, &cqe);
      if (rc == -EAGAIN || rc == -EINTR) {
        if (got >= min) break;
        continue;
      }
      if (rc < 0) return rc;
      out[got++] = {static_cast<uint32_t>(io_uring_cqe_get_data64(cqe)), cqe->res};
      io_uring_cqe_seen(&ring_, cqe);
    }
    return static_cast<int>(got);
  }

 private:
  io_uring ring_{};
  int fd_ = -1;
  bool ready_ = false;
};

}  // namespace

std::unique_ptr<Engine> make_io_uring_engine() { return std::make_unique<IoUringEngine>(); }

}  // namespace diskcond::rawio
