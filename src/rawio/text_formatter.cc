// The original rawio's tables. Column widths reproduce the seed article's output exactly; a
// column holding a wider value (a long ID, K/sec of a RAM-backed target) widens to fit it with
// one space to spare, header and every row alike, so the columns stay aligned.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rawio/formatter.h"

namespace diskcond::rawio {
namespace {

constexpr int kIdWidth = 8;     // the summary table's ID column, as the seed shows it
constexpr int kRowIdWidth = 6;  // the verbose rows' ID column

enum class Align { kLeft, kRight };

struct Column {
  int width;  // the seed's width; widened by widen()
  Align align;
};

using Row = std::vector<std::string>;

// Widens each column to its widest cell plus one space (a row may have fewer cells).
void widen(std::vector<Column>& columns, const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    for (size_t c = 0; c < row.size() && c < columns.size(); ++c) {
      columns[c].width = std::max(columns[c].width, static_cast<int>(row[c].size()) + 1);
    }
  }
}

std::string cell(const std::string& text, const Column& column) {
  const size_t pad = static_cast<size_t>(std::max(0, column.width - static_cast<int>(text.size())));
  return column.align == Align::kLeft ? text + std::string(pad, ' ') : std::string(pad, ' ') + text;
}

// The rows, each cell in its column; REQUIRES: widen(columns, rows) was called.
std::string render_rows(const std::vector<Column>& columns, const std::vector<Row>& rows) {
  std::string out;
  for (const Row& row : rows) {
    for (size_t c = 0; c < row.size() && c < columns.size(); ++c) out += cell(row[c], columns[c]);
    out += "\n";
  }
  return out;
}

// Widths of a test's title and its K/sec column in the summary table (the /sec column is 6).
struct SummaryColumns {
  int title;
  int kib;
};
SummaryColumns summary_columns(TestKind kind) {
  switch (kind) {
    case TestKind::kRandomRead:
      return {15, 9};
    case TestKind::kSequentialRead:
      return {17, 9};
    case TestKind::kRandomWrite:
      return {16, 10};
    case TestKind::kSequentialWrite:
      return {17, 10};
  }
  return {17, 10};
}

// The tests that appear in any report, in the original's order.
std::vector<TestKind> tests_run(std::span<const TargetReport> reports) {
  std::vector<TestKind> kinds;
  for (TestKind kind : kAllTests) {
    for (const auto& r : reports) {
      bool found = false;
      for (const auto& t : r.tests) found = found || t.spec.kind == kind;
      if (found) {
        kinds.push_back(kind);
        break;
      }
    }
  }
  return kinds;
}

const RunResult* find_test(const TargetReport& report, TestKind kind) {
  for (const auto& t : report.tests) {
    if (t.spec.kind == kind) return &t;
  }
  return nullptr;
}

// Seconds with two decimals, or three significant digits below 0.1 s (a count-based test of a
// small area can take 0.034 s, which "0.03" would hide).
std::string seconds_text(double seconds) {
  return seconds >= 0.1 || seconds == 0 ? fmt::format("{:.2f}", seconds)
                                        : fmt::format("{:.3g}", seconds);
}

std::string us(uint64_t ns) {
  return fmt::format("{:.1f}", static_cast<double>(ns) / 1000.0);
}

// Milliseconds with one decimal.
std::string ms(uint64_t ns) {
  return fmt::format("{:.1f}", static_cast<double>(ns) / 1e6);
}

// A rate in transfers per second: whole above 100, else three significant digits.
std::string rate_text(double per_sec) {
  return per_sec >= 100 ? fmt::format("{:.0f}", per_sec) : fmt::format("{:.3g}", per_sec);
}

class TextFormatter final : public Formatter {
 public:
  TextFormatter(int verbosity, Units units) : verbosity_(verbosity), units_(units) {}
  std::string render(std::span<const TargetReport> reports) const override {
    if (verbosity_ <= 0)
      return format_summary_table(reports, units_) + format_measured_time(reports);
    std::string out = format_test_rows(reports, units_);
    if (verbosity_ >= 2) out += "\n" + format_latency_rows(reports);
    if (verbosity_ >= 3) out += "\n" + format_worker_rows(reports);
    return out + format_measured_time(reports);
  }

 private:
  int verbosity_;
  Units units_;
};

// The rate cells of one test in the chosen units: the column headers and the values.
std::vector<std::string> rate_headers(Units units) {
  switch (units) {
    case Units::kKib:
      return {"K/sec", "/sec"};
    case Units::kMib:
      return {"MiB/sec", "IOPS"};
    case Units::kIops:
      return {"IOPS"};
  }
  return {};
}

std::vector<std::string> rate_cells(const RunResult* t, Units units) {
  if (!t) return std::vector<std::string>(rate_headers(units).size(), "-");
  switch (units) {
    case Units::kKib:
      return {fmt::format("{:.1f}", t->kib_per_sec()),
              fmt::format("{:.0f}", t->transfers_per_sec())};
    case Units::kMib:
      return {fmt::format("{:.2f}", t->kib_per_sec() / 1024.0),
              fmt::format("{:.0f}", t->transfers_per_sec())};
    case Units::kIops:
      return {fmt::format("{:.1f}", t->transfers_per_sec())};
  }
  return {};
}

}  // namespace

std::string_view units_key(Units units) {
  switch (units) {
    case Units::kKib:
      return "kib";
    case Units::kMib:
      return "mib";
    case Units::kIops:
      return "iops";
  }
  return "?";
}

std::optional<Units> parse_units(std::string_view key) {
  for (Units units : {Units::kKib, Units::kMib, Units::kIops}) {
    if (key == units_key(units)) return units;
  }
  return std::nullopt;
}

std::string format_summary_table(std::span<const TargetReport> reports, Units units) {
  const std::vector<TestKind> kinds = tests_run(reports);
  const std::vector<std::string> headers = rate_headers(units);
  const size_t per_test = headers.size();
  std::vector<Column> columns = {{kIdWidth, Align::kLeft}};
  Row header = {"ID"};
  for (TestKind kind : kinds) {
    // The seed's widths: K/sec 9 or 10, /sec 6; IOPS alone takes both.
    const int kib = summary_columns(kind).kib;
    if (per_test == 2) {
      columns.push_back({kib, Align::kRight});
      columns.push_back({6, Align::kRight});
    } else {
      columns.push_back({kib + 6, Align::kRight});
    }
    header.insert(header.end(), headers.begin(), headers.end());
  }
  std::vector<Row> rows = {header};
  for (const auto& report : reports) {
    Row row = {report.id};
    for (TestKind kind : kinds) {
      for (std::string& c : rate_cells(find_test(report, kind), units)) row.push_back(std::move(c));
    }
    rows.push_back(std::move(row));
  }
  widen(columns, rows);
  // The titles line: each test's title over its columns, as much wider than the seed's as
  // they widened.
  std::string titles(static_cast<size_t>(columns[0].width), ' ');
  for (size_t i = 0; i < kinds.size(); ++i) {
    const SummaryColumns seed = summary_columns(kinds[i]);
    int width = 0;
    for (size_t c = 0; c < per_test; ++c) width += columns[1 + per_test * i + c].width;
    const int extra = width - seed.kib - 6;
    titles += cell(std::string(test_title(kinds[i])), {seed.title + extra, Align::kRight});
  }
  return titles + "\n" + render_rows(columns, rows);
}

std::string format_test_rows(std::span<const TargetReport> reports, Units units) {
  std::vector<Column> columns = {{8, Align::kLeft}, {kRowIdWidth, Align::kLeft}};
  Row header = {"Test", "ID"};
  const std::vector<std::string> headers = rate_headers(units);
  if (headers.size() == 2) {
    columns.insert(columns.end(), {{9, Align::kRight}, {8, Align::kRight}});
  } else {
    columns.push_back({9, Align::kRight});
  }
  header.insert(header.end(), headers.begin(), headers.end());
  columns.insert(columns.end(),
                 {{6, Align::kRight}, {6, Align::kRight}, {7, Align::kRight}, {7, Align::kRight}});
  header.insert(header.end(), {"%User", "%Sys", "%Total"});
  std::vector<Row> rows = {header};
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      Row row = {std::string(test_code(t.spec.kind)), report.id};
      for (std::string& c : rate_cells(&t, units)) row.push_back(std::move(c));
      row.insert(
          row.end(),
          {fmt::format("{:.1f}", t.user_percent()), fmt::format("{:.1f}", t.sys_percent()),
           fmt::format("{:.1f}", t.total_percent()), fmt::format("{}", t.spec.transfer_bytes)});
      rows.push_back(std::move(row));
    }
  }
  widen(columns, rows);
  return render_rows(columns, rows);
}

std::string format_latency_rows(std::span<const TargetReport> reports) {
  std::vector<Column> columns = {
      {8, Align::kLeft},   {kRowIdWidth, Align::kLeft}, {10, Align::kRight}, {10, Align::kRight},
      {10, Align::kRight}, {10, Align::kRight},         {10, Align::kRight}};
  std::vector<Row> rows = {{"Test", "ID", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us"}};
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      const LatencyHistogram& h = t.latency;
      rows.push_back({std::string(test_code(t.spec.kind)), report.id, us(h.percentile_ns(50)),
                      us(h.percentile_ns(90)), us(h.percentile_ns(99)), us(h.percentile_ns(99.9)),
                      us(h.max_ns())});
    }
  }
  widen(columns, rows);
  return render_rows(columns, rows);
}

std::string format_worker_rows(std::span<const TargetReport> reports) {
  std::vector<Column> columns = {
      {8, Align::kLeft},  {kRowIdWidth, Align::kLeft}, {7, Align::kRight},  {10, Align::kRight},
      {7, Align::kRight}, {10, Align::kRight},         {10, Align::kRight}, {10, Align::kRight}};
  std::vector<Row> rows = {
      {"Test", "ID", "Worker", "Transfers", "Share", "p50 us", "p99 us", "max us"}};
  std::string fairness;
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      uint64_t least = UINT64_MAX, most = 0;
      for (size_t w = 0; w < t.workers.size(); ++w) {
        const WorkerFigures& f = t.workers[w];
        const LatencyHistogram h = LatencyHistogram::restore(f.latency);
        const double share = t.transfers ? 100.0 * static_cast<double>(f.transfers) /
                                               static_cast<double>(t.transfers)
                                         : 0.0;
        rows.push_back({std::string(test_code(t.spec.kind)), report.id, fmt::format("{}", w),
                        fmt::format("{}", f.transfers), fmt::format("{:.1f}%", share),
                        us(h.percentile_ns(50)), us(h.percentile_ns(99)), us(h.max_ns())});
        least = std::min(least, f.transfers);
        most = std::max(most, f.transfers);
      }
      if (t.workers.size() > 1 && t.transfers > 0) {
        fairness += fmt::format(
            "Fairness {} {}: workers did {} to {} transfers (even share {:.0f}); most/least {}\n",
            report.id, test_code(t.spec.kind), least, most,
            static_cast<double>(t.transfers) / static_cast<double>(t.workers.size()),
            least > 0 ? fmt::format("{:.2f}", static_cast<double>(most) / least) : "inf");
      }
    }
  }
  widen(columns, rows);
  return render_rows(columns, rows) + fairness;
}

std::string format_measured_time(std::span<const TargetReport> reports) {
  std::string out;
  for (const auto& report : reports) {
    if (report.tests.empty()) continue;
    std::string tests;
    int64_t warmup_ns = report.tests.front().spec.warmup_ns;
    for (const auto& t : report.tests) {
      tests += fmt::format("{}{} {} s{}", tests.empty() ? "" : ", ", test_code(t.spec.kind),
                           seconds_text(t.seconds()),
                           t.stopped_by == StopReason::kCancelled ? " (interrupted)" : "");
      if (t.spec.warmup_ns != warmup_ns) warmup_ns = -1;
    }
    std::string warmup;
    if (warmup_ns > 0)
      warmup = fmt::format(", each after a {:.1f} s warm-up", static_cast<double>(warmup_ns) / 1e9);
    out += fmt::format("Measured {}: {}{}\n", report.id, tests, warmup);
  }
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      if (t.spec.open_loop()) out += format_open_loop_line(report.id, t);
    }
  }
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      if (t.steady_state) out += format_steady_state_line(report.id, t);
    }
  }
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      if (t.verify) out += format_verify_line(report.id, t);
    }
  }
  for (const auto& report : reports) {
    for (const Caution& c : report.cautions) out += "Caution: " + c.text + "\n";
  }
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      if (t.stopped_by != StopReason::kCancelled) continue;
      out += fmt::format("PARTIAL: interrupted during {} on {}; the figures are those up to then\n",
                         test_code(t.spec.kind), report.id);
    }
  }
  return out;
}

std::string format_open_loop_line(const std::string& id, const RunResult& t) {
  std::string behind;
  if (t.behind_at_end_ns > 0)
    behind =
        fmt::format(", {} ms behind at the end", ms(static_cast<uint64_t>(t.behind_at_end_ns)));
  return fmt::format(
      "Open loop {} {}: requested {}/s {} (seed {}), achieved {}/s; issue lag p99 {} ms, max {} "
      "ms{}\n",
      id, test_code(t.spec.kind), rate_text(t.requested_rate_per_sec()),
      arrival_key(t.spec.arrival), t.spec.seed, rate_text(t.achieved_rate_per_sec()),
      ms(t.schedule_lag.percentile_ns(99)), ms(t.schedule_lag.max_ns()), behind);
}

std::string format_verify_line(const std::string& id, const RunResult& t) {
  const VerifyResult& v = *t.verify;
  const std::string how =
      v.through_page_cache ? ", after flushing and dropping the page cache" : "";
  if (v.ok()) {
    return fmt::format("Verified {} {}: {} transfers read back, all as written ({} s{})\n", id,
                       test_code(t.spec.kind), v.transfers_checked,
                       seconds_text(static_cast<double>(v.elapsed_ns) / 1e9), how);
  }
  return fmt::format(
      "VERIFY FAILED {} {}: {} of {} transfers read back differ from what was "
      "written; first: {}{}\n",
      id, test_code(t.spec.kind), v.mismatched, v.transfers_checked, v.first_bad, how);
}

std::string format_steady_state_line(const std::string& id, const RunResult& t) {
  const SteadyState& s = *t.steady_state;
  const SteadyStateRule rule;
  const std::string window = seconds_text(static_cast<double>(s.window_ns) / 1e9);
  auto percent = [](double f) {
    return std::isfinite(f) ? fmt::format("{:.1f}%", f * 100) : std::string("inf");
  };
  const std::string figures = fmt::format(
      "mean {}/s, range {} ({} {:.0f}%), slope {} ({} {:.0f}%)", rate_text(s.last.mean),
      percent(s.last.range_fraction), s.last.range_fraction <= rule.max_range ? "<=" : ">",
      rule.max_range * 100, percent(s.last.slope_fraction),
      s.last.slope_fraction <= rule.max_slope ? "<=" : ">", rule.max_slope * 100);
  if (s.reached) {
    return fmt::format(
        "Steady state {} {}: reached after {} rounds of {} s ({} s); rounds {}-{}: {}\n", id,
        test_code(t.spec.kind), s.reached_round, window,
        seconds_text(static_cast<double>(s.window_ns) / 1e9 * static_cast<double>(s.reached_round)),
        s.reached_round - rule.rounds + 1, s.reached_round, figures);
  }
  const std::string last =
      s.rounds.size() >= rule.rounds
          ? fmt::format("last {} rounds", rule.rounds)
          : fmt::format("{} round{}", s.rounds.size(), s.rounds.size() == 1 ? "" : "s");
  return fmt::format(
      "Steady state {} {}: NOT reached in {} round{} of {} s (at most {}); {}: {}; these are not "
      "steady-state figures\n",
      id, test_code(t.spec.kind), s.rounds.size(), s.rounds.size() == 1 ? "" : "s", window,
      s.max_rounds, last, s.rounds.empty() ? "no whole round" : figures);
}

std::unique_ptr<Formatter> make_text_formatter(int verbosity, Units units) {
  return std::make_unique<TextFormatter>(verbosity, units);
}

}  // namespace diskcond::rawio
