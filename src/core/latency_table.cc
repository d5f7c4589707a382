#include "core/latency_table.h"

#include <fmt/format.h>

#include <charconv>

#include "core/splitmix64.h"

namespace diskcond {
namespace {

constexpr size_t kMaxPoints = 64;

Result<double> parse_number(std::string_view text, std::string_view what, std::string_view point) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return make_error(
        fmt::format("latency_table: '{}' in '{}' is not a number ({})", text, point, what));
  }
  return v;
}

}  // namespace

Result<LatencyTable> parse_latency_table(std::string_view text) {
  LatencyTable t;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view point = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t colon = point.find(':');
    if (colon == std::string_view::npos) {
      return make_error(
          fmt::format("latency_table: '{}' is not quantile:multiplier (such as 0.99:3)", point));
    }
    auto q = parse_number(point.substr(0, colon), "a quantile", point);
    if (!q.ok()) return Error{q.error()};
    auto m = parse_number(point.substr(colon + 1), "a multiplier", point);
    if (!m.ok()) return Error{m.error()};
    if (!(*q > 0 && *q <= 1))
      return make_error(fmt::format("latency_table: quantile {} is not above 0 and at most 1", *q));
    if (!(*m > 0 && *m <= 1e6))
      return make_error(fmt::format("latency_table: multiplier {} is not above 0 (to 1e6)", *m));
    if (!t.points.empty() && *q <= t.points.back().quantile)
      return make_error("latency_table: quantiles must rise from one point to the next");
    if (!t.points.empty() && *m < t.points.back().multiplier)
      return make_error("latency_table: multipliers may not fall as the quantile rises");
    if (t.points.size() == kMaxPoints) return make_error("latency_table: more than 64 points");
    t.points.push_back({*q, *m});
  }
  if (t.points.empty()) return make_error("latency_table: no point (such as 0.5:0.9,0.99:3,1:8)");
  if (t.points.back().quantile != 1)
    return make_error("latency_table: the last point's quantile must be 1 (the slowest command)");
  double mean = t.points[0].quantile * t.points[0].multiplier;
  for (size_t i = 0; i + 1 < t.points.size(); ++i) {
    mean += (t.points[i + 1].quantile - t.points[i].quantile) *
            (t.points[i].multiplier + t.points[i + 1].multiplier) / 2;
  }
  for (LatencyPoint& p : t.points) p.multiplier /= mean;
  return t;
}

double latency_table_quantile(const LatencyTable& t, double u) {
  if (t.points.empty()) return 1.0;
  if (u <= t.points[0].quantile) return t.points[0].multiplier;
  for (size_t i = 0; i + 1 < t.points.size(); ++i) {
    const LatencyPoint& a = t.points[i];
    const LatencyPoint& b = t.points[i + 1];
    if (u <= b.quantile)
      return a.multiplier +
             (b.multiplier - a.multiplier) * (u - a.quantile) / (b.quantile - a.quantile);
  }
  return t.points.back().multiplier;
}

double latency_table_draw(uint32_t seed, uint64_t index) {
  const uint64_t key = (static_cast<uint64_t>(seed) << 32) ^ mix64(index ^ 0x5851F42D4C957F2DULL);
  return static_cast<double>(mix64(key) >> 11) * 0x1.0p-53;
}

double latency_table_factor(const LatencyTable& t, uint32_t seed, uint64_t index) {
  if (t.points.empty()) return 1.0;
  return latency_table_quantile(t, latency_table_draw(seed, index));
}

}  // namespace diskcond
