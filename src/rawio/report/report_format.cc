#include "rawio/report/report_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "rawio/formatter.h"

namespace diskcond::rawio::report {
namespace {

using nlohmann::json;

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

std::string format_run_list(const std::vector<history::RunSummary>& runs) {
  if (runs.empty()) return "no saved runs\n";
  using Row = std::array<std::string, 6>;
  std::vector<Row> rows = {{"Run", "When", "Host", "Target", "ID", "Tests"}};
  for (const auto& r : runs) {
    rows.push_back(
        {std::to_string(r.run_id), r.when_utc, r.host, r.target, r.label, joined(r.tests)});
  }
  std::array<size_t, 6> width{};
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = fmt::format("{:>{}}", row[0], width[0]);
    for (size_t c = 1; c < row.size(); ++c) {
      line += "  " + (c + 1 < row.size() ? fmt::format("{:<{}}", row[c], width[c]) : row[c]);
    }
    out += line + "\n";
  }
  return out;
}

std::string format_run_list_json(const std::vector<history::RunSummary>& runs) {
  json list = json::array();
  for (const auto& r : runs) {
    list.push_back({{"run", r.run_id},
                    {"when_utc", r.when_utc},
                    {"host", r.host},
                    {"target", r.target},
                    {"id", r.label},
                    {"tests", r.tests}});
  }
  return json{{"runs", list}}.dump(2) + "\n";
}

std::string format_report_json(const std::vector<history::SavedRun>& runs,
                               const std::vector<std::string>& labels) {
  json list = json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    const history::SavedRun& run = runs[i];
    TargetReport report = run.report;
    report.id = labels[i];
    // The target object exactly as rawio --json writes it, taken from that formatter's output.
    json target = json::parse(make_json_formatter(json())->render({&report, 1}))["targets"][0];
    json options = json::parse(run.context.options_json, nullptr, /*allow_exceptions=*/false);
    list.push_back({{"run", run.run_id},
                    {"when_utc", run.context.when_utc},
                    {"host", run.context.host},
                    {"kernel", run.context.kernel},
                    {"engine", run.context.engine},
                    {"options", options.is_discarded() ? json() : options},
                    {"target", target}});
  }
  return json{{"tool", "rawio"}, {"version", DISKCOND_VERSION}, {"runs", list}}.dump(2) + "\n";
}

}  // namespace diskcond::rawio::report
