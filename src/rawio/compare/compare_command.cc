#include "rawio/compare/compare_command.h"

#include <fmt/format.h>

#include "core/one_line.h"
#include "rawio/command_line.h"
#include "rawio/compare/compare_format.h"
#include "rawio/history/history_store.h"
#include "rawio/report/report_plot.h"
#include "rawio/report/run_selection.h"
#include "rawio/report/saved_history.h"

namespace diskcond::rawio::compare {
namespace {

void say(std::FILE* err, const std::string& line) {
  fmt::print(err, "rawio: compare: {}\n", one_line(line));
}

// The run ids a side stands for, oldest first; an error names an unknown run or ID.
Result<std::vector<int64_t>> choose(const std::vector<history::RunSummary>& saved, const Side& side,
                                    size_t last) {
  report::RunSelection selection;
  if (side.run_id) {
    selection.run_ids = {*side.run_id};
  } else {
    selection.labels = {side.label};
    selection.last = last;
  }
  return report::select_runs(saved, selection);
}

Result<ChosenSide> load_side(history::HistoryStore& store,
                             const std::vector<history::RunSummary>& saved, const Side& side,
                             size_t last) {
  auto ids = choose(saved, side, last);
  if (!ids) return make_error(ids.error());
  ChosenSide chosen{side.run_id ? std::to_string(*side.run_id) : side.label, {}};
  for (int64_t id : *ids) {
    auto run = store.load(id);
    if (!run) return make_error(run.error());
    chosen.runs.push_back(std::move(*run));
  }
  return chosen;
}

std::vector<TargetReport> reports_of(const ChosenSide& side) {
  std::vector<TargetReport> out;
  for (const auto& r : side.runs) out.push_back(r.report);
  return out;
}

}  // namespace

int run_compare(const CompareInvocation& inv, std::FILE* out, std::FILE* err) {
  int exit_code = kExitOk;
  auto saved = report::open_saved_history(inv.db_path, &exit_code);
  if (!saved) return say(err, saved.error()), exit_code;
  auto a = load_side(saved->store, saved->runs, inv.a, inv.last);
  if (!a) return say(err, a.error()), kExitUsage;
  auto b = load_side(saved->store, saved->runs, inv.b, inv.last);
  if (!b) return say(err, b.error()), kExitUsage;
  const std::vector<TargetReport> ra = reports_of(*a), rb = reports_of(*b);
  const std::vector<TestComparison> tests = compare_reports(ra, rb, inv.options);
  const std::vector<std::string> notes = setup_differences(ra, rb);
  if (!inv.plot_path.empty()) {
    std::vector<history::SavedRun> runs = a->runs;
    runs.insert(runs.end(), b->runs.begin(), b->runs.end());
    std::vector<std::string> labels = report::row_labels(runs);
    std::vector<TargetReport> rows;
    for (size_t i = 0; i < runs.size(); ++i) {
      rows.push_back(runs[i].report);
      rows.back().id = (i < a->runs.size() ? "A " : "B ") + labels[i];
    }
    if (Status s = report::write_plot(inv.plot_path, report::plot_svg(rows)); !s)
      return say(err, s.error()), kExitIoError;
  }
  std::string text = inv.json ? format_comparison_json(*a, *b, tests, notes, inv.options)
                              : format_comparison(*a, *b, tests, notes, inv.options);
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
  for (const TestComparison& t : tests) {
    if (t.regression) return kExitRegression;
  }
  return kExitOk;
}

}  // namespace diskcond::rawio::compare
