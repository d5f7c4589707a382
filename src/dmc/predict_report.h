// The model's predictions for the standard workloads, as a table (`dmc predict`, the demo) or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/predict.h"
#include "core/profile.h"

namespace diskcond::dmc {

struct NamedWorkload {
  std::string label;  // e.g. "SEQ1M QD1 read"
  Workload workload;  // queue_depth 0 means "the profile's queue depth"
};

// The workloads the accuracy benchmarks use: 1 MiB sequential read/write at QD1 and QD32, 4 KiB
// random read at QD1 and at the profile's queue depth, 4 KiB random write at QD1.
const std::vector<NamedWorkload>& standard_workloads();

// Resolves queue_depth 0 to the profile's queue depth.
Workload resolve(const Workload& w, const Profile& profile);

// One row per profile, one column per standard workload: MiB/s for 1 MiB workloads, IOPS for 4 KiB.
// Rows are numbered from `first_index` (a profile's index in the catalog).
std::string format_prediction_table(std::span<const Profile> profiles, size_t first_index = 0);

// [{"profile": name, "predictions": [{"workload", "block_bytes", "queue_depth", "iops",
//   "bytes_per_sec", "mean_latency_ns"}]}]; an unlimited figure is null.
nlohmann::ordered_json predictions_json(std::span<const Profile> profiles);

}  // namespace diskcond::dmc
