// Small SVG charts for rawio reports: grouped bars (K/sec per test per ID) and lines (throughput
// over time, latency percentiles). Pure functions from data to an SVG document; no I/O.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace diskcond::chart {

struct BarGroup {
  std::string label;           // e.g. "RR"
  std::vector<double> values;  // one per series, >= 0; missing values are 0
};

struct BarChart {
  std::string title;
  std::string y_label;              // e.g. "K/sec"
  std::vector<std::string> series;  // legend, one colour each (e.g. the run IDs)
  std::vector<BarGroup> groups;
  bool log_scale = false;  // for values spanning decades (e.g. HDD vs native)
};

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<LineSeries> series;
};

struct ChartSize {
  int width = 760;
  int height = 400;
};

std::string render_bar_chart(const BarChart& chart, ChartSize size = {});
std::string render_line_chart(const LineChart& chart, ChartSize size = {});

// Stacks complete SVG documents (from the functions above) vertically into one document.
std::string stack_svg(const std::vector<std::string>& documents);

// The smallest "nice" axis maximum (1, 2, 2.5 or 5 times a power of ten) >= value.
double nice_ceiling(double value);
// Escapes &, <, >, " and ' for XML text and attributes.
std::string xml_escape(const std::string& text);

}  // namespace diskcond::chart
