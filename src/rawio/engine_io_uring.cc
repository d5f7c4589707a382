// io_uring via liburing: one ring per worker with `depth` entries, set up on the worker's thread
// with COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN where the kernel has them (as fio does).
// queue() fills an SQE, submit() hands the SQEs queued so far to the kernel, reap() submits
// whatever is left and waits in one io_uring_enter, then drains every CQE that is ready.
#include <fmt/format.h>
#include <liburing.h>
#include <string.h>

#include "core/clock.h"
#include "rawio/engine.h"

namespace diskcond::rawio {
namespace {

class IoUringEngine final : public Engine {
 public:
  ~IoUringEngine() override {
    if (ready_) io_uring_queue_exit(&ring_);
  }

  Status open(int fd, unsigned depth) override {
    fd_ = fd;
    int rc = io_uring_queue_init(
        depth, &ring_,
        IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
    if (rc == -EINVAL) rc = io_uring_queue_init(depth, &ring_, 0);  // kernels before 6.1
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
    return rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY ? rc : 0;
  }

  int reap(unsigned min, std::span<Completion> out) override {
    unsigned got = 0;
    while (got < min || got == 0) {
      int rc = io_uring_submit_and_wait(&ring_, min > got ? min - got : 0);
      if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) return rc;
      unsigned head;
      unsigned seen = 0;
      io_uring_cqe* cqe;
      io_uring_for_each_cqe(&ring_, head, cqe) {
        if (got == out.size()) break;
        out[got++] = {static_cast<uint32_t>(io_uring_cqe_get_data64(cqe)), cqe->res};
        ++seen;
      }
      io_uring_cq_advance(&ring_, seen);
      if (min == 0) break;
    }
    return static_cast<int>(got);
  }

  int reap_until(int64_t deadline_ns, std::span<Completion> out) override {
    int64_t wait_ns = deadline_ns - monotonic_now_ns();
    if (wait_ns > 0) {
      __kernel_timespec ts{wait_ns / 1'000'000'000, wait_ns % 1'000'000'000};
      io_uring_cqe* cqe = nullptr;
      int rc = io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
      if (rc < 0 && rc != -ETIME && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) return rc;
    }
    return reap(0, out);  // whatever is ready, without waiting (and submits what is queued)
  }

 private:
  io_uring ring_{};
  int fd_ = -1;
  bool ready_ = false;
};

}  // namespace

extern const EngineInfo kIoUringEngine{
    "io_uring", {.synchronous = false, .moves_data = true}, make_engine<IoUringEngine>};

}  // namespace diskcond::rawio
