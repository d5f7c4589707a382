#include "rawio/report/report_plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include "chart/svg_chart.h"

extern char** environ;

namespace diskcond::rawio::report {
namespace {

using chart::BarChart;
using chart::BarGroup;
using chart::LineChart;
using chart::LineSeries;

constexpr double kDecadesForLogScale = 2.0;

const RunResult* find_test(const TargetReport& report, TestKind kind) {
  for (const auto& t : report.tests) {
    if (t.spec.kind == kind) return &t;
  }
  return nullptr;
}

std::vector<TestKind> tests_present(const std::vector<TargetReport>& rows) {
  std::vector<TestKind> kinds;
  for (TestKind kind : kAllTests) {
    if (std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return find_test(r, kind); })) {
      kinds.push_back(kind);
    }
  }
  return kinds;
}

// True when the positive values span more than two decades.
bool spans_decades(const std::vector<BarGroup>& groups) {
  double lo = 0, hi = 0;
  for (const auto& g : groups) {
    for (double v : g.values) {
      if (v <= 0) continue;
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  return lo > 0 && hi / lo > std::pow(10.0, kDecadesForLogScale);
}

BarChart throughput_bars(const std::vector<TargetReport>& rows,
                         const std::vector<std::string>& labels) {
  BarChart chart{"Throughput by test", "K/sec", labels, {}, false};
  for (TestKind kind : tests_present(rows)) {
    BarGroup group{std::string(test_code(kind)), {}};
    for (const auto& r : rows) {
      const RunResult* t = find_test(r, kind);
      group.values.push_back(t ? t->kib_per_sec() : 0.0);
    }
    chart.groups.push_back(std::move(group));
  }
  chart.log_scale = spans_decades(chart.groups);
  return chart;
}

BarChart latency_bars(const std::vector<TargetReport>& rows, const std::vector<std::string>& labels,
                      TestKind kind) {
  BarChart chart{fmt::format("{} latency", test_title(kind)), "microseconds", labels, {}, false};
  const std::pair<const char*, double> points[] = {
      {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"max", 100}};
  for (auto [name, p] : points) {
    BarGroup group{name, {}};
    for (const auto& r : rows) {
      const RunResult* t = find_test(r, kind);
      group.values.push_back(t ? static_cast<double>(t->latency.percentile_ns(p)) / 1e3 : 0.0);
    }
    chart.groups.push_back(std::move(group));
  }
  chart.log_scale = spans_decades(chart.groups);
  return chart;
}

constexpr double kSliverSeconds = 0.25;

struct Step {
  double start, end;  // seconds from the test's start
  uint64_t bytes;
};

// One step per second of samples. The last second ends at the elapsed time; if that leaves a
// sliver (the transfers in flight at the time limit completing), it joins the second before,
// since dividing a few transfers by a few milliseconds would draw a spike no device delivered.
std::vector<Step> throughput_steps(const RunResult& t) {
  std::vector<Step> steps;
  for (size_t i = 0; i < t.intervals.size(); ++i) {
    const double start = static_cast<double>(i);
    double end = start + 1.0;
    if (t.seconds() > start && t.seconds() < end) end = t.seconds();
    steps.push_back({start, end, t.intervals[i].bytes});
  }
  if (steps.size() >= 2 && steps.back().end - steps.back().start < kSliverSeconds) {
    Step sliver = steps.back();
    steps.pop_back();
    steps.back().end = sliver.end;
    steps.back().bytes += sliver.bytes;
  }
  return steps;
}

LineChart throughput_over_time(const TargetReport& row) {
  LineChart chart{
      fmt::format("Throughput over time: {} ({})", row.id, row.target), "seconds", "MiB/s", {}};
  for (const RunResult& t : row.tests) {
    LineSeries series{std::string(test_code(t.spec.kind)), {}};
    for (const Step& step : throughput_steps(t)) {
      const double mib_per_sec =
          static_cast<double>(step.bytes) / (1 << 20) / (step.end - step.start);
      series.points.emplace_back(step.start, mib_per_sec);
      series.points.emplace_back(step.end, mib_per_sec);
    }
    chart.series.push_back(std::move(series));
  }
  return chart;
}

}  // namespace

std::string plot_svg(const std::vector<TargetReport>& rows) {
  std::vector<std::string> labels;
  for (const auto& r : rows) labels.push_back(r.id);
  std::vector<std::string> parts = {chart::render_bar_chart(throughput_bars(rows, labels))};
  for (TestKind kind : tests_present(rows)) {
    parts.push_back(chart::render_bar_chart(latency_bars(rows, labels, kind), {760, 320}));
  }
  for (const auto& r : rows)
    parts.push_back(chart::render_line_chart(throughput_over_time(r), {760, 320}));
  return chart::stack_svg(parts);
}

Status write_plot(const std::string& path, const std::string& svg, const std::string& converter) {
  const bool png = path.size() >= 4 && path.compare(path.size() - 4, 4, ".png") == 0;
  const std::string svg_path = png ? path + ".svg.tmp" : path;
  {
    std::ofstream file(svg_path, std::ios::binary | std::ios::trunc);
    file << svg;
    file.close();
    if (!file)
      return make_error(fmt::format("cannot write {}: {}", svg_path, std::strerror(errno)));
  }
  if (!png) return ok_status();
  const char* argv[] = {converter.c_str(), "-f",   "png", "-o", path.c_str(),
                        svg_path.c_str(),  nullptr};
  pid_t pid = 0;
  int rc =
      posix_spawnp(&pid, converter.c_str(), nullptr, nullptr, const_cast<char**>(argv), environ);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  ::unlink(svg_path.c_str());
  if (rc == ENOENT) {
    return make_error(
        fmt::format("cannot write {}: {} not found (install librsvg2-bin, or plot to an "
                    ".svg file)",
                    path, converter));
  }
  if (rc != 0) return make_error(fmt::format("cannot run {}: {}", converter, std::strerror(rc)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return make_error(fmt::format("{} failed to write {}", converter, path));
  }
  return ok_status();
}

}  // namespace diskcond::rawio::report
