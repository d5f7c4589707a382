// psync: pread(2)/pwrite(2). Synchronous: queue() performs the transfer, reap() returns it.
#include <errno.h>
#include <unistd.h>

#include "rawio/engine.h"

namespace diskcond::rawio {
namespace {

class PsyncEngine final : public Engine {
 public:
  Status open(int fd, unsigned /*depth*/) override {
    fd_ = fd;
    return ok_status();
  }

  void queue(const Transfer& t) override {
    ssize_t n = t.write ? ::pwrite(fd_, t.buffer, t.length, static_cast<off_t>(t.offset))
                        : ::pread(fd_, t.buffer, t.length, static_cast<off_t>(t.offset));
    done_ = {t.slot, n < 0 ? -static_cast<int64_t>(errno) : static_cast<int64_t>(n)};
    pending_ = true;
  }

  int submit() override { return 0; }

  int reap(unsigned /*min*/, std::span<Completion> out) override {
    if (!pending_ || out.empty()) return 0;
    out[0] = done_;
    pending_ = false;
    return 1;
  }

  int reap_until(int64_t /*deadline_ns*/, std::span<Completion> out) override {
    return reap(1, out);
  }

 private:
  int fd_ = -1;
  Completion done_{};
  bool pending_ = false;
};

}  // namespace

extern const EngineInfo kPsyncEngine{
    "psync", {.synchronous = true, .moves_data = true}, make_engine<PsyncEngine>};

}  // namespace diskcond::rawio
