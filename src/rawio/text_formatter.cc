// The original rawio's tables. Column widths reproduce the seed article's output exactly; a
// value wider than its column still gets one space in front, so columns never run together.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "rawio/formatter.h"

namespace diskcond::rawio {
namespace {

constexpr int kIdWidth = 8;      // the summary table's ID column, as the seed shows it
constexpr int kRowIdWidth = 6;   // the verbose rows' ID column

// The ID column's width: the seed's, or wider when an ID would not fit with a space after it
// (long IDs, or rawio report's "ID#run"), so that the columns after it stay aligned.
int id_width(std::span<const TargetReport> reports, int minimum) {
  int width = minimum;
  for (const auto& r : reports) width = std::max(width, static_cast<int>(r.id.size()) + 1);
  return width;
}

// Right-aligns text in width, but always leaves at least one space before it.
std::string right(const std::string& text, int width) {
  if (static_cast<int>(text.size()) >= width) return " " + text;
  return std::string(static_cast<size_t>(width) - text.size(), ' ') + text;
}

std::string left(const std::string& text, int width) {
  if (static_cast<int>(text.size()) >= width) return text + " ";
  return text + std::string(static_cast<size_t>(width) - text.size(), ' ');
}

// Widths of a test's title and its K/sec column in the summary table (the /sec column is 6).
struct SummaryColumns {
  int title;
  int kib;
};
SummaryColumns summary_columns(TestKind kind) {
  switch (kind) {
    case TestKind::kRandomRead: return {15, 9};
    case TestKind::kSequentialRead: return {17, 9};
    case TestKind::kRandomWrite: return {16, 10};
    case TestKind::kSequentialWrite: return {17, 10};
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

std::string us(uint64_t ns) { return fmt::format("{:.1f}", static_cast<double>(ns) / 1000.0); }

class TextFormatter final : public Formatter {
 public:
  explicit TextFormatter(int verbosity) : verbosity_(verbosity) {}
  std::string render(std::span<const TargetReport> reports) const override {
    if (verbosity_ <= 0) return format_summary_table(reports);
    std::string out = format_test_rows(reports);
    if (verbosity_ >= 2) out += "\n" + format_latency_rows(reports);
    return out;
  }

 private:
  int verbosity_;
};

}  // namespace

std::string format_summary_table(std::span<const TargetReport> reports) {
  std::vector<TestKind> kinds = tests_run(reports);
  const int width = id_width(reports, kIdWidth);
  std::string titles(static_cast<size_t>(width), ' ');
  std::string header = left("ID", width);
  for (TestKind kind : kinds) {
    SummaryColumns c = summary_columns(kind);
    titles += right(std::string(test_title(kind)), c.title);
    header += right("K/sec", c.kib) + right("/sec", 6);
  }
  std::string out = titles + "\n" + header + "\n";
  for (const auto& report : reports) {
    std::string row = left(report.id, width);
    for (TestKind kind : kinds) {
      SummaryColumns c = summary_columns(kind);
      const RunResult* t = find_test(report, kind);
      row += t ? right(fmt::format("{:.1f}", t->kib_per_sec()), c.kib) +
                     right(fmt::format("{:.0f}", t->transfers_per_sec()), 6)
               : right("-", c.kib) + right("-", 6);
    }
    out += row + "\n";
  }
  return out;
}

std::string format_test_rows(std::span<const TargetReport> reports) {
  const int width = id_width(reports, kRowIdWidth);
  std::string out = left("Test", 8) + left("ID", width) + right("K/sec", 9) + right("/sec", 8) +
                    right("%User", 6) + right("%Sys", 6) + right("%Total", 7) + "\n";
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      out += left(std::string(test_code(t.spec.kind)), 8) + left(report.id, width) +
             right(fmt::format("{:.1f}", t.kib_per_sec()), 9) +
             right(fmt::format("{:.0f}", t.transfers_per_sec()), 8) +
             right(fmt::format("{:.1f}", t.user_percent()), 6) +
             right(fmt::format("{:.1f}", t.sys_percent()), 6) +
             right(fmt::format("{:.1f}", t.total_percent()), 7) +
             right(fmt::format("{}", t.spec.transfer_bytes), 7) + "\n";
    }
  }
  return out;
}

std::string format_latency_rows(std::span<const TargetReport> reports) {
  const int width = id_width(reports, kRowIdWidth);
  std::string out = left("Test", 8) + left("ID", width) + right("p50 us", 10) + right("p90 us", 10) +
                    right("p99 us", 10) + right("p99.9 us", 10) + right("max us", 10) + "\n";
  for (const auto& report : reports) {
    for (const auto& t : report.tests) {
      const LatencyHistogram& h = t.latency;
      out += left(std::string(test_code(t.spec.kind)), 8) + left(report.id, width) +
             right(us(h.percentile_ns(50)), 10) + right(us(h.percentile_ns(90)), 10) +
             right(us(h.percentile_ns(99)), 10) + right(us(h.percentile_ns(99.9)), 10) +
             right(us(h.max_ns()), 10) + "\n";
    }
  }
  return out;
}

std::unique_ptr<Formatter> make_text_formatter(int verbosity) {
  return std::make_unique<TextFormatter>(verbosity);
}

}  // namespace diskcond::rawio
