// An empirical latency distribution (issue 15, item 1): a profile's `latency_table`, quantile ->
// multiplier points such as one measured from a real device, "0.5:0.9,0.99:3,1:8" (the median
// command takes 0.9 times the model's time, p99 3 times, the slowest 8 times). Pure.
//
// The points (q_i, m_i), q ascending in (0, 1] and ending at 1, m non-decreasing and above 0, give
// a quantile function: m_0 up to q_0, then linear between consecutive points. Its mean is
//   q_0 m_0 + sum_i (q_{i+1} - q_i) (m_i + m_{i+1}) / 2
// and every multiplier is divided by it, so the factors have mean 1: the model's mean service
// time, so its throughput, is kept; the table gives the shape (p99 over the median stays 3/0.9).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diskcond {

struct LatencyPoint {
  double quantile = 0;
  double multiplier = 0;
  bool operator==(const LatencyPoint&) const = default;
};

struct LatencyTable {
  std::vector<LatencyPoint> points;  // normalized: mean 1
  bool empty() const { return points.empty(); }
};

// Parses "q:m,q:m,...": 1 to 64 points, as above. Errors are one line naming the point.
Result<LatencyTable> parse_latency_table(std::string_view text);

// The factor at quantile `u` in [0, 1).
double latency_table_quantile(const LatencyTable& table, double u);

// The factor on piece number `index`'s service time: the table's quantile function at a uniform
// draw from (seed, index) alone, so the same seed and pieces give the same factors. 1 for an
// empty table.
double latency_table_factor(const LatencyTable& table, uint32_t seed, uint64_t index);

// The uniform draw latency_table_factor uses, in [0, 1).
double latency_table_draw(uint32_t seed, uint64_t index);

}  // namespace diskcond
