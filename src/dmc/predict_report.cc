#include "dmc/predict_report.h"

#include <fmt/format.h>

#include <cmath>

#include "core/units.h"

namespace diskcond::dmc {

const std::vector<NamedWorkload>& standard_workloads() {
  static const std::vector<NamedWorkload> kWorkloads = {
      {"SEQ1M Q1 read", {Pattern::kSequential, Op::kRead, kMiB, 1}},
      {"SEQ1M Q32 read", {Pattern::kSequential, Op::kRead, kMiB, 32}},
      {"SEQ1M Q1 write", {Pattern::kSequential, Op::kWrite, kMiB, 1}},
      {"SEQ1M Q32 write", {Pattern::kSequential, Op::kWrite, kMiB, 32}},
      {"RND4K Q1 read", {Pattern::kRandom, Op::kRead, 4096, 1}},
      {"RND4K QD read", {Pattern::kRandom, Op::kRead, 4096, 0}},
      {"RND4K Q1 write", {Pattern::kRandom, Op::kWrite, 4096, 1}},
  };
  return kWorkloads;
}

Workload resolve(const Workload& w, const Profile& profile) {
  Workload r = w;
  if (r.queue_depth == 0) r.queue_depth = profile.queue_depth;
  return r;
}

namespace {

// MiB/s for large blocks, IOPS for small ones, "unlimited" for infinity.
std::string cell(const Prediction& p, uint64_t block) {
  if (std::isinf(p.iops)) return "unlimited";
  if (block >= kMiB) return fmt::format("{:.1f} MiB/s", p.bytes_per_sec / kMiB);
  return fmt::format("{:.0f} IOPS", p.iops);
}

}  // namespace

std::string format_prediction_table(std::span<const Profile> profiles, size_t first_index) {
  const auto& workloads = standard_workloads();
  std::string out = fmt::format("{:<3} {:<16}", "#", "Profile");
  for (const auto& w : workloads) out += fmt::format(" {:>15}", w.label);
  out += "\n";
  for (size_t i = 0; i < profiles.size(); ++i) {
    out += fmt::format("{:<3} {:<16}", first_index + i, profiles[i].name);
    for (const auto& w : workloads) {
      Workload resolved = resolve(w.workload, profiles[i]);
      out += fmt::format(" {:>15}", cell(predict(profiles[i], resolved), resolved.block_bytes));
    }
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json predictions_json(std::span<const Profile> profiles) {
  using Json = nlohmann::ordered_json;
  auto finite = [](double v) { return std::isinf(v) ? Json(nullptr) : Json(v); };
  Json out = Json::array();
  for (const Profile& profile : profiles) {
    Json rows = Json::array();
    for (const auto& w : standard_workloads()) {
      Workload resolved = resolve(w.workload, profile);
      Prediction p = predict(profile, resolved);
      rows.push_back({{"workload", w.label},
                      {"pattern", resolved.pattern == Pattern::kRandom ? "random" : "sequential"},
                      {"direction", resolved.direction == Op::kRead ? "read" : "write"},
                      {"block_bytes", resolved.block_bytes},
                      {"queue_depth", resolved.queue_depth},
                      {"iops", finite(p.iops)},
                      {"bytes_per_sec", finite(p.bytes_per_sec)},
                      {"mean_latency_ns", p.mean_latency_ns}});
    }
    out.push_back({{"profile", profile.name}, {"predictions", rows}});
  }
  return out;
}

}  // namespace diskcond::dmc
