// `rawio report --plot`: the saved runs drawn with report/svg_chart, stacked into one SVG:
//   1. grouped bars of K/sec, one group per test, one bar per row (log scale when the values
//      span more than two decades);
//   2. per test, grouped bars of latency p50, p90, p99, p99.9 and max in microseconds, one bar
//      per row (log scale likewise);
//   3. per run, throughput over time in MiB/s, one line per test, from its per-second samples
//      (a last partial second under 0.25 s, the transfers in flight at the time limit, is
//      counted with the second before it).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "rawio/run_result.h"

namespace diskcond::rawio::report {

// REQUIRES: every report's id is its row label. Pure.
std::string plot_svg(const std::vector<TargetReport>& rows);

// Writes `svg` to `path`: as is for .svg; for .png through `converter` (rsvg-convert), with a
// one-line error naming the missing program if it cannot be run.
Status write_plot(const std::string& path, const std::string& svg,
                  const std::string& converter = "rsvg-convert");

}  // namespace diskcond::rawio::report
