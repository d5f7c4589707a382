#include "dmc/mount/conditioner.h"

#include <algorithm>
#include <cassert>

#include "dmc/mount/request_arrival.h"

namespace diskcond::mount {

Conditioner::Conditioner(const Profile& profile, uint64_t capacity, const Clock& clock,
                         ReplyTimer& scheduler, const WritebackParams& writeback)
    : clock_(clock),
      charges_time_(diskcond::charges_time(profile)),
      seeks_(profile.type == DiskType::kHDD),
      scheduler_(scheduler),
      model_(profile, capacity),
      writeback_(model_, writeback) {}

Arrival Conditioner::arrival_now() const {
  const int64_t now_ns = now();
  const Arrival noted = take_request_read();
  return noted.ns > 0 && noted.ns <= now_ns ? noted : Arrival{now_ns, false, noted.unique};
}

Ticket Conditioner::begin(Op op, uint64_t length) {
  assert(op != Op::kFlush || length == 0);
  const Arrival arrival = arrival_now();
  // Only where the order costs time: an HDD's seeks (send_order.h).
  if (op != Op::kFlush && send_order_ != nullptr && arrival.kernel_sent &&
      seeks_.load(std::memory_order_relaxed)) {
    send_order_->wait_for_earlier(arrival.unique);
  }
  live_tickets_.fetch_add(1, std::memory_order_relaxed);
  return Ticket(this, arrival, op, length,
                op == Op::kFlush ? RequestKind::kFlush : RequestKind::kData);
}

void Conditioner::charged(Ticket& t) {
  if (t.unique_ == 0) return;
  if (send_order_ != nullptr) send_order_->reached(t.unique_);
  t.unique_ = 0;
}

Ticket Conditioner::begin_metadata() {
  live_tickets_.fetch_add(1, std::memory_order_relaxed);
  return Ticket(this, arrival_now(), Op::kRead, 0, RequestKind::kMetadata);
}

void Conditioner::count_misuse() {
  ticket_misuses_.fetch_add(1, std::memory_order_relaxed);
  assert(!"a Ticket was destroyed unfinished, finished twice, charged once finished, or "
          "finished by another conditioner");
}

bool Conditioner::check_ticket(const Ticket& t) {
  if (t.owner_ == this) return true;
  count_misuse();
  return false;
}

void Conditioner::submit(Ticket& t, Op op, uint64_t address, uint64_t length) {
  if (!check_ticket(t)) return;
  t.charge(writeback_.submit(Command{op, address, length, t.arrival_ns()}));
  t.device_ = true;
}

void Conditioner::buffered_write(Ticket& t, uint64_t file, uint64_t address, uint64_t length,
                                 uint64_t inode_address, bool resizes, uint64_t token) {
  if (!check_ticket(t)) return;
  t.charge(writeback_.write(file, address, length, inode_address, t.arrival_ns(), resizes, token));
}

void Conditioner::journal(Ticket& t, uint64_t file, uint64_t home_address, uint64_t token) {
  if (!check_ticket(t)) return;
  t.charge(writeback_.journal(file, home_address, t.arrival_ns(), token));
}

void Conditioner::sync(Ticket& t) {
  if (!check_ticket(t)) return;
  t.charge(writeback_.sync_all(t.arrival_ns()));
}

void Conditioner::fsync(Ticket& t, uint64_t file, bool datasync) {
  if (!check_ticket(t)) return;
  t.charge(writeback_.fsync(file, t.arrival_ns(), datasync));
  t.device_ = true;
}

void Conditioner::fsync_directory(Ticket& t, uint64_t dir) {
  if (!check_ticket(t)) return;
  t.charge(writeback_.fsync_directory(dir, t.arrival_ns()));
  t.device_ = true;
}

void Conditioner::change_metadata(Ticket& t, uint64_t file, uint64_t home_address, bool journaled,
                                  uint64_t token) {
  assert(t.kind() == RequestKind::kMetadata);
  if (journaled) {
    journal(t, file, home_address, token);
  } else {
    submit(t, Op::kWrite, home_address - home_address % kMetadataWriteBytes, kMetadataWriteBytes);
  }
  t.op_ = Op::kWrite;
  t.length_ = kMetadataWriteBytes;
}

void Conditioner::lower(std::atomic<int64_t>& floor, int64_t value) {
  int64_t seen = floor.load(std::memory_order_relaxed);
  while ((seen == 0 || value < seen) &&
         !floor.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

void Conditioner::finish(Ticket t, ReplyTimer::Reply send, uint64_t reply_bytes) {
  // A misused ticket's reply still goes (at once): a caller left without one would hang.
  const bool ok = check_ticket(t);
  // No other request is being served: only then may the worker hold its CPU for this one.
  const bool alone = ok && live_tickets_.fetch_sub(1, std::memory_order_relaxed) == 1;
  charged(t);
  t.owner_ = nullptr;
  if (!ok || !t.conditioned()) {
    send();
    return;
  }
  const bool data = t.kind() == RequestKind::kData;
  const int64_t io_done = clock_.now_ns();
  // Conditioning off (a profile that charges no time) leaves the machine's idle policy alone, so
  // the mount is then what it would be without the model (docs/benchmarks.md's overhead table
  // compares it with libfuse's passthrough_ll).
  if (idle_poll_ != nullptr && charges_time()) idle_poll_->busy(clock_.wall_now_ns());
  // A write's data is copied to the daemon after the kernel's send: with the send as its arrival
  // that copy is inside the model's time already, and a lead for it would make the reply early.
  const uint64_t request_bytes = t.op() == Op::kWrite && !t.kernel_sent_ ? t.length() : 0;
  const int64_t lead = data ? data_lead_ns(reply_bytes, request_bytes) : 0;
  int64_t due = std::max(t.completion_ns() - lead, io_done);
  // A reply that waited for the device leaves once the device clock has run past its arrival: a
  // request that arrives during a stall (device time frozen at its start) is held until the stall
  // ends, however short its service or large the lead.
  if (t.device_) due = std::max(due, t.arrival_ns() + 1);
  added_delay_sum_ns_.fetch_add(due - io_done, std::memory_order_relaxed);
  replies_.fetch_add(1, std::memory_order_relaxed);
  if (io_done > t.completion_ns()) {
    backing_bound_.fetch_add(1, std::memory_order_relaxed);
    backing_excess_sum_ns_.fetch_add(io_done - t.completion_ns(), std::memory_order_relaxed);
  }
  if (data && t.length() == kFloorBytes) {
    const int64_t service = std::max<int64_t>(io_done - t.arrival_ns(), 1);
    lower(t.op() == Op::kRead ? floor_read_ns_ : floor_write_ns_, service);
  }
  int cpu = ReplyTimer::kAnyCpu;
  const int64_t wait = due - io_done;
  if (wait >= kMinRoutedWaitNs) {
    if (caller_cpus_ != nullptr && scheduler_.routes_by_cpu()) {
      const int sent_from = request_caller_cpu();
      cpu =
          sent_from >= 0 ? sent_from : caller_cpus_->cpu_of(request_caller(), clock_.wall_now_ns());
    }
  } else if (wait > 0 && wait < ReplyTimer::kMaxSpinWaitNs && worker_spin_ && alone) {
    cpu = ReplyTimer::kThisThread;
  }
  scheduler_.at_cpu(due, cpu, std::move(send));
}

BackingBound Conditioner::backing_bound() const {
  BackingBound b;
  b.replies = backing_bound_.load();
  b.total_excess_ns = backing_excess_sum_ns_.load();
  b.mean_excess_ns = b.replies == 0 ? 0 : static_cast<double>(b.total_excess_ns) / b.replies;
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
