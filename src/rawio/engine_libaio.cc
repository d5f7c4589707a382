// libaio: Linux native AIO. queue() prepares an iocb, submit() hands the batch to io_submit,
// reap() collects events with io_getevents. Truly asynchronous only with O_DIRECT.
#include <errno.h>
#include <fmt/format.h>
#include <libaio.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "core/clock.h"
#include "rawio/engine.h"

namespace diskcond::rawio {
namespace {

class LibaioEngine final : public Engine {
 public:
  ~LibaioEngine() override {
    if (ctx_) io_destroy(ctx_);
  }

  Status open(int fd, unsigned depth) override {
    fd_ = fd;
    int rc = io_setup(static_cast<int>(depth), &ctx_);
    if (rc < 0) {
      ctx_ = nullptr;
      return make_error(fmt::format("io_setup({}): {}", depth, strerror(-rc)));
    }
    iocbs_.resize(depth);
    queued_.resize(depth);
    events_.resize(depth);
    return ok_status();
  }

  void queue(const Transfer& t) override {
    iocb* cb = &iocbs_[t.slot];
    if (t.write) {
      io_prep_pwrite(cb, fd_, t.buffer, t.length, static_cast<long long>(t.offset));
    } else {
      io_prep_pread(cb, fd_, t.buffer, t.length, static_cast<long long>(t.offset));
    }
    cb->data = reinterpret_cast<void*>(static_cast<uintptr_t>(t.slot));
    queued_[count_++] = cb;
  }

  int submit() override {
    unsigned done = 0;
    while (done < count_) {
      int rc = io_submit(ctx_, static_cast<long>(count_ - done), queued_.data() + done);
      if (rc == -EAGAIN || rc == -EINTR) continue;
      if (rc < 0) return rc;
      done += static_cast<unsigned>(rc);
    }
    count_ = 0;
    return 0;
  }

  int reap(unsigned min, std::span<Completion> out) override { return get_events(min, out, -1); }

  int reap_until(int64_t deadline_ns, std::span<Completion> out) override {
    return get_events(1, out, std::max<int64_t>(0, deadline_ns));  // a past deadline: no wait
  }

 private:
  // io_getevents for at least `min` events, until CLOCK_MONOTONIC `deadline_ns` (-1: no limit).
  int get_events(unsigned min, std::span<Completion> out, int64_t deadline_ns) {
    long max = static_cast<long>(std::min(out.size(), events_.size()));
    int rc;
    do {
      timespec timeout{};
      if (deadline_ns >= 0) {
        int64_t wait_ns = std::max<int64_t>(0, deadline_ns - monotonic_now_ns());
        timeout = {wait_ns / 1'000'000'000, wait_ns % 1'000'000'000};
      }
      rc = io_getevents(ctx_, static_cast<long>(min), max, events_.data(),
                        deadline_ns >= 0 ? &timeout : nullptr);
    } while (rc == -EINTR);
    if (rc < 0) return rc;
    for (int i = 0; i < rc; ++i) {
      auto slot = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(events_[i].data));
      // res holds bytes or -errno in the low word; res2 is unused for block I/O.
      out[i] = {slot, static_cast<int64_t>(static_cast<long>(events_[i].res))};
    }
    return rc;
  }

  io_context_t ctx_ = nullptr;
  int fd_ = -1;
  std::vector<iocb> iocbs_;
  std::vector<iocb*> queued_;
  std::vector<io_event> events_;
  unsigned count_ = 0;
};

}  // namespace

extern const EngineInfo kLibaioEngine{
    "libaio", {.synchronous = false, .moves_data = true}, make_engine<LibaioEngine>};

}  // namespace diskcond::rawio
