#include "rawio/compare/compare_command_line.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <string_view>

#include "core/one_line.h"
#include "rawio/cli_rules.h"

namespace diskcond::rawio::compare {
namespace {

const char* kDescription =
    "rawio compare: is B faster or slower than A? A and B are runs saved with rawio --save: a "
    "run\nnumber, or a row ID (its newest run; its N newest, pooled, with --last N). For each "
    "test both\nran: the median per-second IOPS (or p99 latency) of each with a 95% bootstrap "
    "confidence\ninterval, the relative change, a Mann-Whitney U test on the per-second samples "
    "and a verdict.\n";

struct RawText {
  std::string a, b, metric = "iops", alpha, threshold, seed;
};

Side parse_side(const std::string& word) {
  int64_t run = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), run);
  const bool digits = !word.empty() && word.find_first_not_of("0123456789") == std::string::npos;
  if (digits && ec == std::errc() && end == word.data() + word.size() && run >= 1) return {run, ""};
  return {std::nullopt, word};
}

// A fraction typed as "5%", "0.05" or "5e-2"; nullopt outside [min, max] or not a number.
std::optional<double> parse_fraction(std::string text, double min, double max) {
  double scale = 1;
  if (text.ends_with("%")) {
    text.pop_back();
    scale = 0.01;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  value *= scale;
  if (!(value >= min && value <= max)) return std::nullopt;
  return value;
}

std::unique_ptr<CLI::App> build_app(CompareInvocation& inv, RawText& raw) {
  auto app = std::make_unique<CLI::App>(kDescription, "rawio compare");
  app->add_option("a", raw.a, "The base: a run number or a row ID")->required()->type_name("A");
  app->add_option("b", raw.b, "Compared with A: a run number or a row ID")
      ->required()
      ->type_name("B");
  app->add_option("--db", inv.db_path,
                  "History database (default ${XDG_DATA_HOME:-~/.local/share}/diskcond/rawio.db)")
      ->type_name("PATH");
  app->add_option("--last", inv.last,
                  "A side given as an ID: its N newest runs, their seconds pooled (such as runs "
                  "made with rawio --repeat N --save); default 1")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20))
      ->type_name("N");
  app->add_option("--metric", raw.metric,
                  "iops (default; transfers per second, higher is better) or p99 (each second's "
                  "99th percentile latency, lower is better)");
  app->add_option("--alpha", raw.alpha,
                  "Significance level of the U test (default 0.01): below it, a difference is "
                  "significant")
      ->type_name("P");
  app->add_option(
         "--threshold", raw.threshold,
         "Exit 4 when B is significantly slower than A by more than this (default 5%; 5% or "
         "0.05; a plain number above 1 is refused)")
      ->type_name("PCT");
  app->add_option("--seed", raw.seed, "Seed of the bootstrap resampling (default 1)");
  app->add_flag("--json", inv.json, "One JSON document on stdout");
  app->add_option("--plot", inv.plot_path,
                  "Draw the runs side by side as rawio report --plot does (.svg, or .png through "
                  "rsvg-convert)")
      ->type_name("FILE");
  return app;
}

std::string finish(const CLI::App& app, CompareInvocation& inv, const RawText& raw) {
  if (std::string error = repeated_flag_error(app); !error.empty()) return error;
  if (app.count("--db") > 0 && inv.db_path.empty()) return "--db: the database path is empty";
  inv.a = parse_side(raw.a);
  inv.b = parse_side(raw.b);
  if (auto metric = parse_metric(raw.metric)) {
    inv.options.metric = *metric;
  } else {
    return fmt::format("--metric: '{}' is not iops or p99", raw.metric);
  }
  if (app.count("--alpha") > 0) {
    auto alpha = parse_fraction(raw.alpha, 1e-9, 0.5);
    if (!alpha)
      return fmt::format("--alpha: '{}' is not a probability from 1e-9 to 0.5", raw.alpha);
    inv.options.alpha = *alpha;
  }
  if (app.count("--threshold") > 0) {
    auto threshold = parse_fraction(raw.threshold, 0, 10);
    if (!threshold)
      return fmt::format("--threshold: '{}' is not a fraction such as 5% or 0.05", raw.threshold);
    // A plain 5 is 500%, surely meant as 5%: percent above 100 must say so with '%'.
    if (*threshold > 1 && !raw.threshold.ends_with("%"))
      return fmt::format("--threshold: '{}' would be {:g}%; write {}% for percent (or 0.05 for 5%)",
                         raw.threshold, *threshold * 100, raw.threshold);
    inv.options.threshold = *threshold;
  }
  if (app.count("--seed") > 0) {
    uint64_t seed = 0;
    auto [end, ec] = std::from_chars(raw.seed.data(), raw.seed.data() + raw.seed.size(), seed);
    if (raw.seed.empty() || raw.seed.find_first_not_of("0123456789") != std::string::npos ||
        ec != std::errc() || end != raw.seed.data() + raw.seed.size())
      return fmt::format("--seed: '{}' is not a whole number from 0 to 2^64-1", raw.seed);
    inv.options.seed = seed;
  }
  const std::string& plot = inv.plot_path;
  if (app.count("--plot") > 0 && !plot.ends_with(".svg") && !plot.ends_with(".png"))
    return fmt::format("--plot {}: the file name must end in .svg or .png", plot);
  return "";
}

}  // namespace

bool is_compare_command(int argc, const char* const* argv) {
  return argc > 1 && std::string_view(argv[1]) == "compare";
}

ParsedCompareCommandLine parse_compare_command_line(int argc, const char* const* argv) {
  ParsedCompareCommandLine parsed;
  RawText raw;
  auto app = build_app(parsed.invocation, raw);
  static_cast<ParseOutcome&>(parsed) =
      parse_by_rules(*app, argc, argv, "rawio compare", "compare: ",
                     "\nExit status: 0 no significant regression, 1 the database could not be read "
                     "or the plot not written, 2 usage error (including an unknown run or ID), 4 B "
                     "is significantly slower than A beyond --threshold in some test.\n");
  if (parsed.action != ParseAction::kRun) return parsed;
  if (std::string error = finish(*app, parsed.invocation, raw); !error.empty()) {
    parsed.action = ParsedCompareCommandLine::Action::kUsageError;
    parsed.text = "compare: " + one_line(error);
  }
  return parsed;
}

}  // namespace diskcond::rawio::compare
