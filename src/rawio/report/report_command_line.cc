#include "rawio/report/report_command_line.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string_view>

#include "core/one_line.h"
#include "rawio/cli_rules.h"

namespace diskcond::rawio::report {
namespace {

const char* kDescription =
    "rawio report: print runs saved with rawio --save side by side, in rawio's tables, and draw "
    "them.\nWith no RUN, --id or --last: the newest run. RUN adds that run; --id ID adds the "
    "newest run labelled ID\n(the N newest with --last N); --last N alone: the N newest runs.\n";

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A run number: a whole number from 1 (CLI::PositiveNumber's message prints the range of a double,
// 300 digits long).
CLI::Validator run_number() {
  return CLI::Validator(
      [](std::string& word) -> std::string {
        int64_t run = 0;
        const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), run);
        const bool digits =
            !word.empty() && word.find_first_not_of("0123456789") == std::string::npos;
        if (digits && ec == std::errc() && end == word.data() + word.size() && run >= 1) return "";
        return fmt::format("'{}' is not a run number (a whole number from 1)", word);
      },
      "RUN");
}

std::unique_ptr<CLI::App> build_app(ReportInvocation& inv, size_t& last, std::string& units_text) {
  auto app = std::make_unique<CLI::App>(kDescription, "rawio report");
  app->add_option("--db", inv.db_path,
                  "History database (default ${XDG_DATA_HOME:-~/.local/share}/diskcond/rawio.db)")
      ->type_name("PATH");
  app->add_option("runs", inv.selection.run_ids, "Run numbers (see --list)")
      ->check(run_number())
      ->type_name("RUN");
  app->add_option("--last", last, "The N newest runs (of each --id label, with --id)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30))
      ->type_name("N");
  app->add_option("-i,--id", inv.selection.labels, "The newest run with this row ID; repeatable")
      ->allow_extra_args(false)
      ->delimiter(',')
      ->type_name("ID");
  app->add_option("-v,--verbose", inv.verbosity,
                  "As rawio: 0 summary table, 1 one row per test with CPU, 2 adds latency")
      ->check(CLI::Range(0, 2))
      ->default_val(0);
  app->add_flag("--json", inv.json, "One JSON document with the runs (or the list) on stdout");
  app->add_option("--units", units_text, kUnitsHelp)->type_name("UNITS");
  app->add_flag("--list", inv.list, "List the saved runs: run, when, host, target, ID, tests");
  app->add_option("--plot", inv.plot_path,
                  "Draw K/sec, latency percentiles and throughput over time to FILE (.svg, or "
                  ".png through rsvg-convert)")
      ->type_name("FILE");
  return app;
}

// What CLI11 cannot check: "" or the one-line error.
std::string check_combination(const CLI::App& app, ReportInvocation& inv,
                              const std::string& units_text) {
  if (std::string error = repeated_flag_error(app); !error.empty()) return error;
  if (app.count("--db") > 0 && inv.db_path.empty()) return "--db: the database path is empty";
  const std::string& plot = inv.plot_path;
  if (app.count("--plot") > 0 && !ends_with(plot, ".svg") && !ends_with(plot, ".png")) {
    return fmt::format("--plot {}: the file name must end in .svg or .png", plot);
  }
  if (auto units = parse_units(units_text)) {
    inv.units = *units;
  } else {
    return fmt::format("--units: '{}' is not kib, mib or iops", units_text);
  }
  if (inv.list) {
    // --list shows every saved run: a choice of runs, a plot or a table detail would be ignored.
    for (const char* option : {"runs", "--last", "--id", "--plot", "--verbose", "--units"}) {
      if (app.count(option) > 0) {
        return fmt::format("--list shows every saved run; it takes no {}",
                           std::string_view(option) == "runs" ? "RUN numbers" : option);
      }
    }
  }
  return "";
}

}  // namespace

bool is_report_command(int argc, const char* const* argv) {
  return argc > 1 && std::string_view(argv[1]) == "report";
}

ParsedReportCommandLine parse_report_command_line(int argc, const char* const* argv) {
  ParsedReportCommandLine parsed;
  size_t last = 0;
  std::string units_text = "kib";
  auto app = build_app(parsed.invocation, last, units_text);
  static_cast<ParseOutcome&>(parsed) = parse_by_rules(
      *app, argc, argv, "rawio report", "report: ",
      "\nExit status: 0 ok, 1 the database could not be read or the plot not written, "
      "2 usage error (including an unknown run or ID).\n");
  if (parsed.action != ParseAction::kRun) return parsed;
  if (last > 0) parsed.invocation.selection.last = last;
  if (std::string error = check_combination(*app, parsed.invocation, units_text); !error.empty()) {
    parsed.action = ParsedReportCommandLine::Action::kUsageError;
    parsed.text = "report: " + one_line(error);
  }
  return parsed;
}

}  // namespace diskcond::rawio::report
