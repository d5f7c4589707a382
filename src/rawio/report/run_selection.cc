#include "rawio/report/run_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace diskcond::rawio::report {
namespace {

void add_once(std::vector<int64_t>& ids, int64_t id) {
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
}

// The newest `n` of `ids` (ascending), oldest first.
std::vector<int64_t> newest(std::vector<int64_t> ids, size_t n) {
  if (ids.size() > n) ids.erase(ids.begin(), ids.end() - static_cast<long>(n));
  return ids;
}

}  // namespace

Result<std::vector<int64_t>> select_runs(const std::vector<history::RunSummary>& saved,
                                         const RunSelection& selection) {
  if (saved.empty())
    return make_error("the history database holds no runs yet (save some with rawio --save)");
  std::vector<int64_t> chosen;
  for (int64_t id : selection.run_ids) {
    bool known =
        std::any_of(saved.begin(), saved.end(), [&](const auto& s) { return s.run_id == id; });
    if (!known) return make_error(fmt::format("no saved run {} (see rawio report --list)", id));
    add_once(chosen, id);
  }
  for (const std::string& label : selection.labels) {
    std::vector<int64_t> labelled;
    for (const auto& s : saved) {
      if (s.label == label) labelled.push_back(s.run_id);
    }
    if (labelled.empty())
      return make_error(
          fmt::format("no saved run has the ID '{}' (see rawio report --list)", label));
    for (int64_t id : newest(labelled, selection.last.value_or(1))) add_once(chosen, id);
  }
  if (selection.labels.empty() && (selection.last || selection.run_ids.empty())) {
    std::vector<int64_t> all;
    for (const auto& s : saved) all.push_back(s.run_id);
    for (int64_t id : newest(all, selection.last.value_or(1))) add_once(chosen, id);
  }
  return chosen;
}

std::vector<std::string> row_labels(const std::vector<history::SavedRun>& runs) {
  std::map<std::string, int> uses;
  for (const auto& run : runs) ++uses[run.report.id];
  std::vector<std::string> labels;
  for (const auto& run : runs) {
    const std::string& id = run.report.id;
    labels.push_back(uses[id] > 1 ? fmt::format("{}#{}", id, run.run_id) : id);
  }
  return labels;
}

}  // namespace diskcond::rawio::report
