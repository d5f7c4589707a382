#include "core/disk_model.h"
#include "core/splitmix64.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

namespace diskcond {
namespace {

constexpr int64_t kLongAgo = INT64_MIN / 4;
constexpr double kMeanSqrtDistance = 8.0 / 15.0;
constexpr double kSeekFloor = 1.0 / 3.0;

// Slots are a min-heap on free time.
constexpr auto kHeapOrder = std::greater<int64_t>();

}  // namespace

int64_t hdd_seek_ns(int64_t access_ns, double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  double w = kSeekFloor + (1.0 - kSeekFloor) * std::sqrt(fraction) / kMeanSqrtDistance;
  return static_cast<int64_t>(std::llround(static_cast<double>(access_ns) * w));
}

double hdd_mean_random_access_ns(int64_t access_ns, double span_fraction) {
  span_fraction = std::clamp(span_fraction, 0.0, 1.0);
  return static_cast<double>(access_ns) *
         (kSeekFloor + (1.0 - kSeekFloor) * std::sqrt(span_fraction));
}

int64_t transfer_ns(uint64_t bytes, uint64_t bytes_per_sec) {
  if (bytes_per_sec == 0 || bytes == 0) return 0;
  unsigned __int128 num = static_cast<unsigned __int128>(bytes) * 1'000'000'000u;
  return static_cast<int64_t>((num + bytes_per_sec - 1) / bytes_per_sec);
}

namespace {

// Whole bytes moved in `ns` (>= 0) at `bytes_per_sec`; 0 when the rate is 0 (unlimited: nothing
// to read ahead, every transfer takes no time).
uint64_t bytes_in(int64_t ns, uint64_t bytes_per_sec) {
  if (ns <= 0 || bytes_per_sec == 0) return 0;
  return static_cast<uint64_t>(static_cast<unsigned __int128>(ns) * bytes_per_sec / 1'000'000'000u);
}

// The platter time of the part of a write of `length` bytes the drive's buffer holds.
int64_t buffered_write_ns(uint64_t length, uint64_t bytes_per_sec) {
  return transfer_ns(std::min(length, kHddWriteBufferBytes), bytes_per_sec);
}

constexpr double kZ99 = 2.3263478740408408;  // the standard normal's 99th percentile

// (0, 1] from the top 53 bits.
double unit_open(uint64_t bits) {
  return static_cast<double>((bits >> 11) + 1) * 0x1.0p-53;
}

// REQUIRES: validate(profile) is ok (the table parses).
LatencyTable parsed_table(const Profile& profile) {
  if (profile.latency_table.empty()) return {};
  auto table = parse_latency_table(profile.latency_table);
  return table.ok() ? *table : LatencyTable{};
}

int64_t scaled_ns(int64_t ns, double factor) {
  return factor == 1.0 ? ns : static_cast<int64_t>(std::llround(static_cast<double>(ns) * factor));
}

}  // namespace

double latency_factor(uint32_t tail_milli, uint32_t seed, uint64_t index) {
  if (tail_milli <= 1000) return 1.0;
  const double sigma = std::log(tail_milli / 1000.0) / kZ99;
  const uint64_t key = (static_cast<uint64_t>(seed) << 32) ^ mix64(index);
  const double u1 = unit_open(mix64(key));
  const double u2 = unit_open(mix64(key ^ 0xD1B54A32D192ED03ULL));
  const double z =
      std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);  // Box-Muller
  return std::exp(sigma * z - sigma * sigma / 2.0);
}

DiskModel::DiskModel(const Profile& profile, uint64_t capacity_bytes)
    : profile_(profile),
      latency_table_(parsed_table(profile)),
      capacity_(std::max<uint64_t>(capacity_bytes, 1)),
      last_arrival_ns_(kLongAgo),
      channel_free_ns_(kLongAgo),
      latest_completion_ns_(kLongAgo),
      last_write_completion_ns_(kLongAgo),
      head_position_(0) {
  resize_slots(profile.queue_depth);
}

void DiskModel::resize_slots(uint32_t depth) {
  // Keep the latest free times: shrinking the queue must not let new work overtake old work.
  std::sort(slots_.begin(), slots_.end(), std::greater<int64_t>());
  slots_.resize(depth, kLongAgo);
  std::make_heap(slots_.begin(), slots_.end(), kHeapOrder);
}

int64_t DiskModel::take_slot(int64_t arrival) {
  std::pop_heap(slots_.begin(), slots_.end(), kHeapOrder);
  int64_t free_at = slots_.back();
  slots_.pop_back();
  return std::max(arrival, free_at);
}

void DiskModel::release_slot(int64_t completion) {
  slots_.push_back(completion);
  std::push_heap(slots_.begin(), slots_.end(), kHeapOrder);
}

int64_t DiskModel::submit_piece(Op op, uint64_t offset, uint64_t length, int64_t arrival) {
  const uint64_t rate =
      op == Op::kRead ? profile_.read_bytes_per_sec : profile_.write_bytes_per_sec;
  const double factor =
      latency_table_.empty()
          ? latency_factor(profile_.latency_tail_milli, profile_.latency_seed, counters_.pieces)
          : latency_table_factor(latency_table_, profile_.latency_seed, counters_.pieces);
  int64_t start = take_slot(arrival);
  int64_t done;
  if (profile_.type == DiskType::kSSD) {
    int64_t ready = start + scaled_ns(profile_.access_time_ns, factor);
    int64_t transfer_start = std::max(ready, channel_free_ns_);
    done = transfer_start + scaled_ns(transfer_ns(length, rate), factor);
  } else {
    const int64_t idle_from = channel_free_ns_;
    start = std::max(start, channel_free_ns_);
    bool spun_up = false;
    if (profile_.spinup_ns > 0 && profile_.spinup_idle_ns > 0 &&
        latest_completion_ns_ != kLongAgo &&
        start - latest_completion_ns_ >= profile_.spinup_idle_ns) {
      start += profile_.spinup_ns;
      spun_up = true;
    }
    int64_t access = 0;
    uint64_t from_platter = length;
    if (offset != head_position_) {
      uint64_t distance =
          offset > head_position_ ? offset - head_position_ : head_position_ - offset;
      access = hdd_seek_ns(profile_.access_time_ns,
                           static_cast<double>(distance) / static_cast<double>(capacity_));
      ++counters_.seeks;
      read_ahead_bytes_ = 0;
    } else if (op == Op::kRead && !spun_up) {
      // Look-ahead: the buffer filled while the drive was idle since the last piece.
      if (last_piece_read_) {
        read_ahead_bytes_ =
            std::min(read_ahead_bytes_ + bytes_in(start - idle_from, rate), kHddReadAheadBytes);
      }
      const uint64_t buffered = std::min(read_ahead_bytes_, length);
      from_platter = length - buffered;
      read_ahead_bytes_ -= buffered;
    } else {
      read_ahead_bytes_ = 0;
      if (op == Op::kWrite && !spun_up && last_write_ns_ > 0) {
        // Write-behind: the platter kept destaging the last write after the drive acknowledged
        // it, so the idle since then, up to that write's own transfer, cost the stream nothing.
        // (Never before this write's arrival; never more than its own transfer or the buffer.)
        start -= std::min({start - idle_from, last_write_ns_, buffered_write_ns(length, rate)});
      }
    }
    done = std::max(arrival, start + scaled_ns(access + transfer_ns(from_platter, rate), factor));
    head_position_ = offset + length;
    last_piece_read_ = op == Op::kRead;
    last_write_ns_ = op == Op::kWrite ? buffered_write_ns(length, rate) : 0;
  }
  channel_free_ns_ = done;
  release_slot(done);
  latest_completion_ns_ = std::max(latest_completion_ns_, done);
  pending_.push_back(done);
  ++counters_.pieces;
  return done;
}

int64_t DiskModel::submit(const Command& c) {
  std::lock_guard lock(mu_);
  if (c.arrival_ns < last_arrival_ns_) ++counters_.overtaken;
  const int64_t arrival = std::max(c.arrival_ns, last_arrival_ns_);
  last_arrival_ns_ = arrival;
  while (!pending_.empty() && pending_.front() <= arrival) pending_.pop_front();

  const auto op_index = static_cast<size_t>(c.op);
  ++counters_.commands[op_index];
  int64_t completion;
  if (c.op == Op::kFlush) {
    completion = std::max(arrival, last_write_completion_ns_);
    last_write_ns_ = 0;  // the cache is destaged: no write-behind across a flush
  } else {
    counters_.bytes[op_index] += c.length;
    const uint64_t max_piece =
        c.op == Op::kRead ? profile_.max_read_bytes : profile_.max_write_bytes;
    completion = arrival;
    uint64_t offset = c.offset;
    uint64_t remaining = c.length;
    do {
      uint64_t piece = max_piece == 0 ? remaining : std::min(remaining, max_piece);
      completion = std::max(completion,
                            submit_piece(c.op, offset, piece, std::max(arrival, c.not_before_ns)));
      offset += piece;
      remaining -= piece;
    } while (remaining > 0);
    if (c.op == Op::kWrite) {
      last_write_completion_ns_ = std::max(last_write_completion_ns_, completion);
    }
  }
  counters_.total_latency_ns += completion - arrival;
  counters_.last_completion_ns = std::max(counters_.last_completion_ns, completion);
  return completion;
}

void DiskModel::set_profile(const Profile& profile) {
  std::lock_guard lock(mu_);
  if (profile.queue_depth != profile_.queue_depth) resize_slots(profile.queue_depth);
  profile_ = profile;
  latency_table_ = parsed_table(profile);
}

Profile DiskModel::profile() const {
  std::lock_guard lock(mu_);
  return profile_;
}

ModelCounters DiskModel::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

uint32_t DiskModel::outstanding(int64_t now_ns) const {
  std::lock_guard lock(mu_);
  return static_cast<uint32_t>(
      std::count_if(pending_.begin(), pending_.end(), [now_ns](int64_t t) { return t > now_ns; }));
}

}  // namespace diskcond
