#include "rawio/report/report_command.h"

#include <fmt/format.h>

#include "core/one_line.h"
#include "rawio/command_line.h"
#include "rawio/formatter.h"
#include "rawio/history/history_store.h"
#include "rawio/report/report_format.h"
#include "rawio/report/report_plot.h"
#include "rawio/report/run_selection.h"
#include "rawio/report/saved_history.h"

namespace diskcond::rawio::report {
namespace {

void say(std::FILE* err, const std::string& line) {
  fmt::print(err, "rawio: report: {}\n", one_line(line));
}

void print(std::FILE* out, const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

}  // namespace

int run_report(const ReportInvocation& inv, std::FILE* out, std::FILE* err) {
  int exit_code = kExitOk;
  auto saved = open_saved_history(inv.db_path, &exit_code);
  if (!saved) return say(err, saved.error()), exit_code;
  if (inv.list) {
    print(out, inv.json ? format_run_list_json(saved->runs) : format_run_list(saved->runs));
    return kExitOk;
  }
  auto chosen = select_runs(saved->runs, inv.selection);
  if (!chosen) return say(err, chosen.error()), kExitUsage;
  std::vector<history::SavedRun> runs;
  for (int64_t id : *chosen) {
    auto run = saved->store.load(id);
    if (!run) return say(err, run.error()), kExitIoError;
    runs.push_back(std::move(*run));
  }
  std::vector<std::string> labels = row_labels(runs);
  std::vector<TargetReport> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    rows.push_back(runs[i].report);
    rows.back().id = labels[i];
  }
  // Plot first, so a failure leaves no partial output on stdout.
  if (!inv.plot_path.empty()) {
    if (Status s = write_plot(inv.plot_path, plot_svg(rows)); !s)
      return say(err, s.error()), kExitIoError;
  }
  print(out, inv.json ? format_report_json(runs, labels)
                      : make_text_formatter(inv.verbosity, inv.units)->render(rows));
  return kExitOk;
}

}  // namespace diskcond::rawio::report
