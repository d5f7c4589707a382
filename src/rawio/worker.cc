#include "rawio/worker.h"

#include <fmt/format.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "core/clock.h"
#include "rawio/write_pattern.h"

namespace diskcond::rawio {

void Worker::FreeDeleter::operator()(void* p) const {
  std::free(p);
}

Worker::Worker(const TestSpec& spec, unsigned index)
    : spec_(spec),
      index_(index),
      share_(worker_share(spec.transfer_count, spec.workers, index)),
      offsets_(is_random(spec.kind), spec.area_bytes, spec.transfer_bytes, spec.workers, index,
               spec.seed),
      interval_latency_(interval_slots(spec.time_limit_ns)),
      intervals_(interval_slots(spec.time_limit_ns)) {
  if (spec.open_loop())
    schedule_.emplace(spec.arrival, spec.rate_per_sec, spec.workers, index, spec.seed);
}

Status Worker::prepare(int fd, const EngineInfo& engine, unsigned depth, uint32_t alignment,
                       bool log_transfers) {
  if (log_transfers) log_.emplace().prepare();
  depth_ = engine.caps.synchronous ? 1 : depth;
  void* mem = nullptr;
  size_t size = static_cast<size_t>(depth_) * spec_.transfer_bytes;
  if (int rc = posix_memalign(&mem, alignment < 4096 ? 4096 : alignment, size); rc != 0) {
    return make_error(
        fmt::format("cannot allocate {} bytes of transfer buffers: {}", size, strerror(rc)));
  }
  buffers_.reset(static_cast<uint8_t*>(mem));
  // Random data, stamped per sector at each write (write_pattern.h), so writes are not shortcut
  // by zero detection, compression or deduplication, and --verify knows what was written.
  for (unsigned slot = 0; slot < depth_; ++slot) {
    fill_write_base(buffers_.get() + static_cast<size_t>(slot) * spec_.transfer_bytes,
                    spec_.transfer_bytes, spec_.seed);
  }
  interval_latency_.prefault();
  submitted_ns_.assign(depth_, 0);
  intended_ns_.assign(depth_, 0);
  slot_offset_.assign(depth_, 0);
  completions_.resize(depth_);
  free_slots_.clear();
  for (unsigned s = depth_; s-- > 0;) free_slots_.push_back(s);
  engine_ = engine.make();
  engine_name_ = engine.name;
  fd_ = fd;
  return ok_status();
}

void Worker::record_error(int64_t result, uint64_t offset) {
  const char* what = is_write(spec_.kind) ? "write" : "read";
  if (result < 0) {
    error_ = fmt::format("{} of {} bytes at offset {} failed: {}", what, spec_.transfer_bytes,
                         offset, strerror(static_cast<int>(-result)));
  } else {
    error_ = fmt::format("short {} at offset {}: {} of {} bytes (end of target?)", what, offset,
                         result, spec_.transfer_bytes);
  }
}

void Worker::run(StartBarrier& start, const TestClock& clock, std::atomic<bool>& stop,
                 WorkerProgress& progress) {
  Status opened = engine_->open(fd_, depth_);
  if (!opened) {
    error_ = fmt::format("{} engine: {}", engine_name_, opened.error());
    stop.store(true);
  }
  start.arrive_and_wait();
  if (!opened) return;
  if (schedule_) {
    open_loop(clock, stop, progress);
  } else {
    loop(clock, stop, progress);
  }
}

void Worker::loop(const TestClock& clock, std::atomic<bool>& stop, WorkerProgress& progress) {
  intervals_.start(clock.measure_start_ns);
  const int64_t deadline = clock.deadline_ns;
  const unsigned batch = spec_.submit_batch > 0 ? spec_.submit_batch : 1;
  int64_t now = clock.start_ns;

  for (;;) {
    if (now < deadline && issued_ < share_ && !stop.load(std::memory_order_relaxed)) {
      // Each transfer is stamped just before the submission that starts it.
      int64_t stamp = monotonic_now_ns();
      unsigned queued = 0;
      int rc = 0;
      while (in_flight_ < depth_ && issued_ < share_ && rc >= 0) {
        queue_transfer(stamp, stamp);
        if (++queued == batch) {
          rc = engine_->submit();
          queued = 0;
          if (in_flight_ < depth_ && issued_ < share_) stamp = monotonic_now_ns();
        }
      }
      if (queued > 0 && rc >= 0) rc = engine_->submit();
      if (failed(rc, stop)) break;  // the engine's destructor tears down whatever is still queued
    } else if (now >= deadline) {
      hit_deadline_ = true;
    }
    if (in_flight_ == 0) break;
    int n = engine_->reap(1, completions_);
    now = monotonic_now_ns();
    if (!take_reaped(n, now, clock, stop, progress)) break;
  }
  finish(now);
}

}  // namespace diskcond::rawio

namespace diskcond::rawio {

void Worker::open_loop(const TestClock& clock, std::atomic<bool>& stop, WorkerProgress& progress) {
  intervals_.start(clock.measure_start_ns);
  const int64_t deadline = clock.deadline_ns;
  const unsigned batch = spec_.submit_batch > 0 ? spec_.submit_batch : 1;
  bool issuing = true;
  int64_t due = clock.start_ns + schedule_->next_ns();  // the next transfer's intended time
  int64_t now = monotonic_now_ns();

  for (;;) {
    if (issuing && (issued_ == share_ || due >= deadline || stop.load(std::memory_order_relaxed))) {
      issuing = false;  // the schedule (or the share) is done
      hit_deadline_ = due >= deadline;
    } else if (issuing && now >= deadline) {
      issuing = false;  // behind schedule at the deadline: what is due stays unissued
      hit_deadline_ = true;
      behind_at_end_ns_ = deadline - due;
    }
    if (issuing) {
      // Everything already due, in order, while a slot is free; each stamped as it is queued.
      unsigned queued = 0;
      int rc = 0;
      while (in_flight_ < depth_ && due <= now && issued_ < share_ && due < deadline && rc >= 0) {
        queue_transfer(due, now);
        due = clock.start_ns + schedule_->next_ns();
        if (++queued == batch) {
          rc = engine_->submit();
          queued = 0;
          now = monotonic_now_ns();
        }
      }
      if (queued > 0 && rc >= 0) rc = engine_->submit();
      if (failed(rc, stop)) break;
    }
    if (in_flight_ == 0) {
      if (!issuing) break;
      // Ahead of schedule with nothing in flight: sleep until the next transfer is due, waking at
      // least every 100 ms to see the stop flag.
      int64_t wake = std::min(due, now + 100'000'000);
      timespec ts{wake / 1'000'000'000, wake % 1'000'000'000};
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
      }
      now = monotonic_now_ns();
      continue;
    }
    // A free slot and a transfer not yet due: wait for a completion or its time, whichever first.
    int n = issuing && in_flight_ < depth_
                ? engine_->reap_until(std::min(due, deadline), completions_)
                : engine_->reap(1, completions_);
    now = monotonic_now_ns();
    if (!take_reaped(n, now, clock, stop, progress)) break;
  }
  finish(now);
}

void Worker::queue_transfer(int64_t intended_ns, int64_t submitted_ns) {
  const bool write = is_write(spec_.kind);
  const uint32_t length = spec_.transfer_bytes;
  const uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  const uint64_t offset = offsets_.next();
  intended_ns_[slot] = intended_ns;
  submitted_ns_[slot] = submitted_ns;
  slot_offset_[slot] = offset;
  uint8_t* buffer = buffers_.get() + static_cast<size_t>(slot) * length;
  if (write) stamp_sectors(buffer, offset, length, spec_.seed);
  engine_->queue({buffer, offset, length, slot, write});
  ++in_flight_;
  ++issued_;
}

bool Worker::failed(int rc, std::atomic<bool>& stop) {
  if (rc >= 0) return false;
  record_error(rc, 0);
  stop.store(true, std::memory_order_relaxed);
  return true;
}

bool Worker::take_reaped(int n, int64_t now, const TestClock& clock, std::atomic<bool>& stop,
                         WorkerProgress& progress) {
  if (failed(n, stop)) return false;
  complete(n, now, clock.measure_start_ns, stop);
  progress.transfers.store(transfers_, std::memory_order_relaxed);
  return true;
}

void Worker::complete(int n, int64_t now, int64_t measure_start, std::atomic<bool>& stop) {
  const uint32_t length = spec_.transfer_bytes;
  for (int i = 0; i < n; ++i) {
    const Completion& c = completions_[i];
    if (c.result != static_cast<int64_t>(length)) {
      if (error_.empty()) record_error(c.result, slot_offset_[c.slot]);
      stop.store(true, std::memory_order_relaxed);
    } else if (now >= measure_start) {
      size_t second = intervals_.add(now, length);
      interval_latency_.record(second, static_cast<uint64_t>(now - intended_ns_[c.slot]));
      if (log_) [[unlikely]]
        log_->add({intended_ns_[c.slot], submitted_ns_[c.slot], now, slot_offset_[c.slot], length});
      if (schedule_) {
        schedule_lag_.record(static_cast<uint64_t>(submitted_ns_[c.slot] - intended_ns_[c.slot]));
        service_latency_.record(static_cast<uint64_t>(now - submitted_ns_[c.slot]));
      }
      ++transfers_;
      bytes_ += length;
    }
    free_slots_.push_back(c.slot);
    --in_flight_;
  }
}

void Worker::finish(int64_t now) {
  end_ns_ = now;
  interval_latency_.finish();
}

}  // namespace diskcond::rawio
