// What a profile delivers to a steady workload: the figures `dmc verify`, the tests and the
// benchmarks compare measurements with.
#pragma once

#include <cstdint>

#include "core/disk_model.h"
#include "core/profile.h"

namespace diskcond {

enum class Pattern { kSequential, kRandom };

struct Workload {
  Pattern pattern = Pattern::kRandom;
  Op direction = Op::kRead;  // kRead or kWrite
  uint64_t block_bytes = 4096;
  uint32_t queue_depth = 1;  // commands the application keeps outstanding (closed loop)
  // Random offsets fall in this fraction of the device address space (a file is a small part of
  // a disk); HDD seeks are shorter in a smaller span. 1 = the whole device.
  double span_fraction = 1.0;
};

struct Prediction {
  double iops = 0;  // application commands per second; infinity when unlimited
  double bytes_per_sec = 0;
  double mean_latency_ns = 0;  // per application command, waiting included (Little's law)
};

// Steady-state prediction for one sequential stream or uniformly random offsets (within
// span_fraction of the device), from the same
// rules as DiskModel (docs/disk-model.md). Exact for commands no larger than the profile's max
// bytes; for split commands it assumes the pieces pipeline like independent commands.
Prediction predict(const Profile& profile, const Workload& workload);

// Runs the workload through a DiskModel as a closed loop (queue_depth commands outstanding, the
// next one issued when one completes) for `commands` commands with offsets from `seed`, and
// reports what it achieved. Used to check predict() and by benchmarks.
Prediction simulate(const Profile& profile, const Workload& workload, uint64_t capacity_bytes,
                    uint64_t commands, uint64_t seed);

}  // namespace diskcond
