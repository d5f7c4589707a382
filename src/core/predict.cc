#include "core/predict.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <utility>
#include <vector>

namespace diskcond {

Prediction predict(const Profile& profile, const Workload& w) {
  const bool read = w.direction == Op::kRead;
  const uint64_t rate = read ? profile.read_bytes_per_sec : profile.write_bytes_per_sec;
  const uint64_t max_piece = read ? profile.max_read_bytes : profile.max_write_bytes;
  const uint64_t pieces =
      max_piece == 0 ? 1 : std::max<uint64_t>(1, (w.block_bytes + max_piece - 1) / max_piece);
  const double transfer = static_cast<double>(transfer_ns(w.block_bytes, rate));
  const double access = static_cast<double>(profile.access_time_ns);

  double command_ns;  // device time per application command at the bottleneck
  if (profile.type == DiskType::kHDD) {
    // One actuator: commands are served one after another whatever the queue depth. Only the
    // first piece of a random command seeks; the rest continue where it ended.
    command_ns =
        transfer + (w.pattern == Pattern::kRandom
                        ? hdd_mean_random_access_ns(profile.access_time_ns, w.span_fraction)
                        : 0.0);
  } else {
    // Pieces in service overlap their access times; the data channel serialises transfers.
    const double in_service = static_cast<double>(
        std::min<uint64_t>(uint64_t{w.queue_depth} * pieces, profile.queue_depth));
    const double piece_transfer = transfer / static_cast<double>(pieces);
    const double per_piece = std::max((access + piece_transfer) / in_service, piece_transfer);
    command_ns = per_piece * static_cast<double>(pieces);
  }

  Prediction p;
  if (command_ns <= 0) {
    p.iops = std::numeric_limits<double>::infinity();
    p.bytes_per_sec = std::numeric_limits<double>::infinity();
    return p;
  }
  p.iops = 1e9 / command_ns;
  p.bytes_per_sec = p.iops * static_cast<double>(w.block_bytes);
  p.mean_latency_ns = static_cast<double>(w.queue_depth) * command_ns;
  return p;
}

Prediction simulate(const Profile& profile, const Workload& w, uint64_t capacity_bytes,
                    uint64_t commands, uint64_t seed) {
  DiskModel model(profile, capacity_bytes);
  std::mt19937_64 rng(seed);
  const double span = std::clamp(w.span_fraction, 0.0, 1.0) * static_cast<double>(capacity_bytes);
  const uint64_t blocks = std::max<uint64_t>(1, static_cast<uint64_t>(span) / w.block_bytes);
  std::uniform_int_distribution<uint64_t> pick(0, blocks - 1);
  uint64_t next_sequential = 0;
  auto next_offset = [&] {
    if (w.pattern == Pattern::kRandom) return pick(rng) * w.block_bytes;
    uint64_t off = next_sequential;
    next_sequential = (next_sequential + w.block_bytes) % (blocks * w.block_bytes);
    return off;
  };

  // Completion times of outstanding commands; the earliest one frees its issuer.
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> outstanding;
  int64_t total_latency = 0;
  uint64_t issued = 0;
  auto issue = [&](int64_t at) {
    int64_t done = model.submit({w.direction, next_offset(), w.block_bytes, at});
    total_latency += done - at;
    outstanding.push(done);
    ++issued;
  };
  for (uint32_t i = 0; i < w.queue_depth && issued < commands; ++i) issue(0);
  int64_t end = 0;
  while (!outstanding.empty()) {
    end = outstanding.top();
    outstanding.pop();
    if (issued < commands) issue(end);
  }

  Prediction p;
  if (end <= 0) {
    p.iops = p.bytes_per_sec = std::numeric_limits<double>::infinity();
    return p;
  }
  p.iops = static_cast<double>(commands) * 1e9 / static_cast<double>(end);
  p.bytes_per_sec = p.iops * static_cast<double>(w.block_bytes);
  p.mean_latency_ns = static_cast<double>(total_latency) / static_cast<double>(commands);
  return p;
}

}  // namespace diskcond
