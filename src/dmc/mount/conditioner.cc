#include "dmc/mount/conditioner.h"

#include <algorithm>

namespace diskcond::mount {

Conditioner::Conditioner(const Profile& profile, uint64_t capacity, const Clock& clock,
                         ReplyScheduler& scheduler, const WritebackParams& writeback)
    : clock_(clock),
      scheduler_(scheduler),
      model_(profile, capacity),
      writeback_(model_, writeback) {}

int64_t Conditioner::submit(Op op, uint64_t address, uint64_t length, int64_t arrival_ns) {
  return writeback_.submit(Command{op, address, length, arrival_ns});
}

void Conditioner::lower(std::atomic<int64_t>& floor, int64_t value) {
  int64_t seen = floor.load(std::memory_order_relaxed);
  while ((seen == 0 || value < seen) &&
         !floor.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

void Conditioner::reply(int64_t arrival_ns, int64_t completion_ns, Op op, uint64_t length,
                        bool data, ReplyScheduler::Reply send) {
  const int64_t io_done = clock_.now_ns();
  const int64_t lead = data ? transit_lead_ns() : 0;
  const int64_t due = std::max(completion_ns - lead, io_done);
  added_delay_sum_ns_.fetch_add(due - io_done, std::memory_order_relaxed);
  replies_.fetch_add(1, std::memory_order_relaxed);
  if (io_done > completion_ns) {
    backing_bound_.fetch_add(1, std::memory_order_relaxed);
    backing_excess_sum_ns_.fetch_add(io_done - completion_ns, std::memory_order_relaxed);
  }
  if (data && length == 4096) {
    const int64_t service = std::max<int64_t>(io_done - arrival_ns, 1);
    lower(op == Op::kRead ? floor_read_ns_ : floor_write_ns_, service);
  }
  scheduler_.at(due, std::move(send));
}

BackingBound Conditioner::backing_bound() const {
  BackingBound b;
  b.replies = backing_bound_.load();
  b.mean_excess_ns =
      b.replies == 0 ? 0 : static_cast<double>(backing_excess_sum_ns_.load()) / b.replies;
  return b;
}

MountCounters Conditioner::counters() const {
  MountCounters c;
  const ModelCounters m = model_.counters();
  for (int i = 0; i < 3; ++i) {
    c.commands[i] = m.commands[i];
    c.bytes[i] = m.bytes[i];
  }
  const uint64_t n = replies_.load();
  c.mean_added_delay_ns = n == 0 ? 0 : static_cast<double>(added_delay_sum_ns_.load()) / n;
  c.queue_occupancy = model_.outstanding(clock_.now_ns());
  c.floor_read_ns = static_cast<double>(floor_read_ns_.load());
  c.floor_write_ns = static_cast<double>(floor_write_ns_.load());
  return c;
}

}  // namespace diskcond::mount
