// null: every transfer completes at once, nothing reaches the target. What rawio measures with it
// is its own cost per transfer (offsets, timestamps, histogram, bookkeeping).
#include <vector>

#include "rawio/engine.h"

namespace diskcond::rawio {
namespace {

class NullEngine final : public Engine {
 public:
  Status open(int /*fd*/, unsigned depth) override {
    done_.resize(depth);
    return ok_status();
  }

  void queue(const Transfer& t) override { done_[count_++] = {t.slot, t.length}; }

  int submit() override { return 0; }

  int reap(unsigned /*min*/, std::span<Completion> out) override {
    unsigned n = count_ < out.size() ? count_ : static_cast<unsigned>(out.size());
    for (unsigned i = 0; i < n; ++i) out[i] = done_[--count_];
    return static_cast<int>(n);
  }

  int reap_until(int64_t /*deadline_ns*/, std::span<Completion> out) override {
    return reap(0, out);
  }

 private:
  std::vector<Completion> done_;
  unsigned count_ = 0;
};

}  // namespace

extern const EngineInfo kNullEngine{
    "null", {.synchronous = false, .moves_data = false}, make_engine<NullEngine>};

}  // namespace diskcond::rawio
