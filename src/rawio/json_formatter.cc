// One JSON document for a whole run. Keys carry their units (`_ns`, `_bytes`, `_per_sec`,
// `_percent`, `_us`); the schema is documented in docs/rawio.md.
#include <nlohmann/json.hpp>

#include <cmath>

#include "rawio/formatter.h"

namespace diskcond::rawio {
namespace {

using nlohmann::json;

// 2: histogram buckets (lat_ns.buckets, per-interval lat_ns) with sub_bucket_bits 10. Documents
// without the key are version 1.
constexpr int kJsonSchemaVersion = 2;

// Non-empty buckets as [index, samples] pairs (the layout is the document's "histogram" object).
json buckets_json(const BucketList& buckets) {
  json out = json::array();
  for (auto [index, samples] : buckets) out.push_back({index, samples});
  return out;
}

json latency_json(const LatencyHistogram& h) {
  return {{"samples", h.count()},
          {"sum", h.sum_ns()},
          {"min", h.min_ns()},
          {"mean", h.mean_ns()},
          {"p50", h.percentile_ns(50)},
          {"p90", h.percentile_ns(90)},
          {"p99", h.percentile_ns(99)},
          {"p99_9", h.percentile_ns(99.9)},
          {"p99_99", h.percentile_ns(99.99)},
          {"max", h.max_ns()},
          {"buckets", buckets_json(h.non_empty_buckets())}};
}

// One second's histogram: exact count, sum, min and max, and its buckets.
json interval_latency_json(const SparseHistogram& h) {
  return {{"samples", h.count},
          {"sum", h.sum_ns},
          {"min", h.min_ns},
          {"max", h.max_ns},
          {"buckets", buckets_json(h.buckets)}};
}

// How to read bucket indices, so that a reader can merge and recompute without rawio.
json histogram_layout_json() {
  return {{"scheme", "log_linear"},
          {"sub_bucket_bits", LatencyHistogram::kSubBucketBits},
          {"bucket_count", LatencyHistogram::kBucketCount},
          {"max_tracked_ns", LatencyHistogram::kMaxTrackedNs},
          {"value", "midpoint"}};
}

// Open loop's figures, or null for a closed-loop test.
json open_loop_json(const RunResult& t) {
  if (!t.spec.open_loop()) return nullptr;
  return {{"arrival", std::string(arrival_key(t.spec.arrival))},
          {"seed", t.spec.seed},
          {"requested_rate_per_sec", t.requested_rate_per_sec()},
          {"achieved_rate_per_sec", t.achieved_rate_per_sec()},
          {"schedule_lag_ns", latency_json(t.schedule_lag)},
          {"behind_at_end_ns", t.behind_at_end_ns},
          {"service_lat_ns", latency_json(t.service_latency)}};
}

// A --steady-state test's rounds and verdict, or null.
json steady_state_json(const RunResult& t) {
  if (!t.steady_state) return nullptr;
  const SteadyState& s = *t.steady_state;
  const SteadyStateRule rule;
  auto finite = [](double v) { return std::isfinite(v) ? json(v) : json(); };
  return {{"window_ns", s.window_ns},
          {"max_rounds", s.max_rounds},
          {"rounds_per_sec", s.rounds},
          {"reached", s.reached},
          {"reached_round", s.reached ? json(s.reached_round) : json()},
          {"reached_at_ns",
           s.reached ? json(s.window_ns * static_cast<int64_t>(s.reached_round)) : json()},
          {"window_mean_per_sec", s.last.mean},
          {"window_range_fraction", finite(s.last.range_fraction)},
          {"window_slope_fraction", finite(s.last.slope_fraction)},
          {"rule",
           {{"rounds", rule.rounds},
            {"max_range_fraction", rule.max_range},
            {"max_slope_fraction", rule.max_slope}}}};
}

// --verify's figures, or null.
json verify_json(const RunResult& t) {
  if (!t.verify) return nullptr;
  const VerifyResult& v = *t.verify;
  return {{"ok", v.ok()},
          {"transfers_checked", v.transfers_checked},
          {"mismatched", v.mismatched},
          {"first_bad_offset", v.ok() ? json() : json(v.first_bad_offset)},
          {"first_bad", v.ok() ? json() : json(v.first_bad)},
          {"through_page_cache", v.through_page_cache},
          {"elapsed_ns", v.elapsed_ns}};
}

// Each worker's share (fairness): issued, transfers, bytes, latency percentiles.
json workers_json(const RunResult& t) {
  json out = json::array();
  for (size_t w = 0; w < t.workers.size(); ++w) {
    const WorkerFigures& f = t.workers[w];
    LatencyHistogram h = LatencyHistogram::restore(f.latency);
    out.push_back(
        {{"worker", w},
         {"issued", f.issued},
         {"transfers", f.transfers},
         {"bytes", f.bytes},
         {"lat_ns",
          {{"p50", h.percentile_ns(50)}, {"p99", h.percentile_ns(99)}, {"max", h.max_ns()}}}});
  }
  return out;
}

json test_json(const RunResult& t) {
  json intervals = json::array();
  for (size_t i = 0; i < t.intervals.size(); ++i) {
    json sample = {
        {"start_sec", i}, {"bytes", t.intervals[i].bytes}, {"transfers", t.intervals[i].transfers}};
    if (i < t.interval_latency.size())
      sample["lat_ns"] = interval_latency_json(t.interval_latency[i]);
    intervals.push_back(std::move(sample));
  }
  return {{"test", std::string(test_code(t.spec.kind))},
          {"name", std::string(test_key(t.spec.kind))},
          {"engine", t.engine},
          {"direct_io", t.direct},
          {"transfer_bytes", t.spec.transfer_bytes},
          {"workers", t.spec.workers},
          {"iodepth", t.iodepth},
          {"submit_batch", t.spec.submit_batch},
          {"area_bytes", t.spec.area_bytes},
          {"transfer_count_limit", t.spec.transfer_count},
          {"time_limit_ns", t.spec.time_limit_ns},
          {"warmup_ns", t.spec.warmup_ns},
          {"seed", t.spec.seed},
          {"stopped_by", std::string(stop_reason_key(t.stopped_by))},
          {"transfers", t.transfers},
          {"bytes", t.bytes},
          {"elapsed_ns", t.elapsed_ns},
          {"bw_bytes_per_sec", t.bytes_per_sec()},
          {"kib_per_sec", t.kib_per_sec()},
          {"transfers_per_sec", t.transfers_per_sec()},
          {"cpu",
           {{"user_ns", t.cpu.user_ns},
            {"sys_ns", t.cpu.sys_ns},
            {"user_percent", t.user_percent()},
            {"sys_percent", t.sys_percent()},
            {"total_percent", t.total_percent()},
            {"cpu_us_per_transfer", t.cpu_us_per_transfer()}}},
          {"lat_ns", latency_json(t.latency)},
          {"open_loop", open_loop_json(t)},
          {"steady_state", steady_state_json(t)},
          {"verify", verify_json(t)},
          {"workers_detail", workers_json(t)},
          {"intervals", {{"interval_ns", IntervalLog::kIntervalNs}, {"samples", intervals}}}};
}

class JsonFormatter final : public Formatter {
 public:
  explicit JsonFormatter(json options) : options_(std::move(options)) {}

  std::string render(std::span<const TargetReport> reports) const override {
    json targets = json::array();
    bool partial = false;
    for (const auto& r : reports) {
      json tests = json::array();
      for (const auto& t : r.tests) {
        tests.push_back(test_json(t));
        partial = partial || t.stopped_by == StopReason::kCancelled;
      }
      json cautions = json::array();
      for (const Caution& c : r.cautions) cautions.push_back({{"key", c.key}, {"text", c.text}});
      targets.push_back({{"id", r.id},
                         {"target", r.target},
                         {"kind", r.kind},
                         {"io_path", r.io_path},
                         {"area_bytes", r.area_bytes},
                         {"sector_bytes", r.sector_bytes},
                         {"cautions", cautions},
                         {"tests", tests}});
    }
    json doc = {{"tool", "rawio"},
                {"version", DISKCOND_VERSION},
                {"schema_version", kJsonSchemaVersion},
                {"histogram", histogram_layout_json()},
                {"partial", partial},
                {"options", options_},
                {"targets", targets}};
    return doc.dump(2) + "\n";
  }

 private:
  json options_;
};

}  // namespace

std::unique_ptr<Formatter> make_json_formatter(json options) {
  return std::make_unique<JsonFormatter>(std::move(options));
}

}  // namespace diskcond::rawio
