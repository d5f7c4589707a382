// The FUSE round trip outside the disk model's clock, learned from traffic, per calling thread.
//
// The model's time for a request starts when its handler runs. The caller waits longer: the
// kernel hands the request (and a write's data) to the daemon first, and the reply back after.
// For a thread that issues its next request when the previous reply arrives, the gap between our
// sending that reply and the next request's arrival is that round trip plus whatever the thread
// did in between. Replying a thread's typical gap (the median of its recent gaps, per direction)
// before the model's completion, never before the backing I/O is done, makes its requests take
// the model's time on average. The median, not the smallest gap: on a busy machine the round trip
// varies by tens of microseconds, and the smallest gap left queue-depth-1 callers 2-4% slow; a
// request may now reach its caller up to (median - its own round trip) early. Threads that keep
// several requests queued give small gaps and so get a small lead, which is right for them: their
// requests overlap anyway. Think time under kMaxGapNs between requests is not told apart from
// transit and shortens such a caller's waits by as much.
//
// Thread-safe; one mutex, held for a few dozen instructions.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "core/disk_model.h"

namespace diskcond::mount {

class TransitEstimator {
 public:
  // Gaps longer than this are the caller thinking, not transit; they are not learned.
  static constexpr int64_t kMaxGapNs = 2'000'000;
  static constexpr size_t kWindow = 32;        // recent gaps kept per thread and direction
  static constexpr size_t kMaxCallers = 4096;  // threads remembered; forgotten all at once beyond

  // A reply to `caller` (a thread id, from fuse_req_ctx) left at `sent_ns`.
  void replied(pid_t caller, int64_t sent_ns);
  // A request from `caller` (op kRead or kWrite) arrived at `arrival_ns`: learns the gap since
  // the caller's last reply when it is positive and short, and returns the caller's lead for
  // `op` (the lower median of its recent gaps; 0 until it has one).
  int64_t arrived(pid_t caller, Op op, int64_t arrival_ns);
  // The lead most recently returned for `op`, for diagnostics.
  int64_t last_lead_ns(Op op) const;

 private:
  struct Window {
    std::array<int64_t, kWindow> gaps{};
    size_t count = 0;  // valid entries (<= kWindow)
    size_t next = 0;   // where the next gap goes
    int64_t lead = 0;  // lower median of the valid entries; 0 when none
  };
  struct Caller {
    int64_t last_reply_ns = 0;  // 0: none yet
    Window windows[2];          // read, write
  };

  mutable std::mutex mu_;
  std::unordered_map<pid_t, Caller> callers_;
  int64_t last_lead_[2] = {};
};

}  // namespace diskcond::mount
