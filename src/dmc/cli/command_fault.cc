// dmc fault add|list|remove|clear|release|log <mount> ...: a conditioned directory's fault rules,
// live (core/fault_rules.h for the rule words; the daemon keeps and applies them). Adding,
// removing, clearing and releasing need root; listing does not. Every word is checked before the
// mount is asked.
#include <fmt/format.h>

#include <time.h>

#include <charconv>
#include <random>

#include "core/fault_rules.h"
#include "dmc/cli/command_support.h"
#include "dmc/cli/commands.h"
#include "dmc/cli/json_format.h"
#include "dmc/cli/mount_path.h"

namespace diskcond::dmc {
namespace {

// The words after <mount> each subcommand takes, and whether it changes the rules.
struct FaultSubcommand {
  std::string_view name;
  size_t min_words, max_words;
  bool changes;
};

constexpr FaultSubcommand kSubcommands[] = {
    {"add", 1, SIZE_MAX, true}, {"list", 0, 0, false},   {"remove", 1, 1, true},
    {"clear", 0, 0, true},      {"release", 0, 0, true}, {"log", 0, 0, false},
};

// The conditioned directory holding `named`, running; else the Outcome to return.
Result<std::string> running_mount(Context& ctx, const std::string& named, Outcome& outcome) {
  auto status = ctx.mounts().status(named);
  if (!status.ok()) {
    outcome = failure(ExitCode::kFailed, status.error());
    return Error{status.error()};
  }
  if (!status->mounted) {
    outcome = failure(ExitCode::kWrongState, fmt::format("{} is not conditioned", named));
    return Error{outcome.message};
  }
  if (!status->daemon_alive) {
    outcome = failure(ExitCode::kStale, stale_mount_message(status->mount_point));
    return Error{outcome.message};
  }
  return status->mount_point;
}

nlohmann::ordered_json fault_list_json(const std::string& mount, const mount::FaultReport& report) {
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (const FaultRuleState& s : report.rules) {
    nlohmann::ordered_json rule = {{"id", s.id},
                                   {"rule", fault_rule_text(s.rule)},
                                   {"action", std::string(fault_action_name(s.rule.action))},
                                   {"matched_requests", s.matched},
                                   {"injected_faults", s.fired}};
    if (s.rule.action == FaultAction::kBadSectors) rule["repaired_bytes"] = s.repaired;
    if (s.rule.has_seed) rule["seed"] = s.rule.seed;
    rules.push_back(std::move(rule));
  }
  return {{"schema_version", kJsonSchemaVersion},
          {"mount", mount},
          {"faults_injected", report.injected},
          {"rules", rules}};
}

// What a rule has done, in words.
std::string rule_counts(const FaultRuleState& s) {
  switch (s.rule.action) {
    case FaultAction::kStall:
      return fmt::format("stalls {}", s.fired);
    case FaultAction::kBadSectors:
      return fmt::format("failed reads {}, repaired {} bytes", s.fired, s.repaired);
    default:
      return fmt::format("matched {}, injected {}", s.matched, s.fired);
  }
}

std::string fault_list_text(const std::string& mount, const mount::FaultReport& report) {
  std::string out = fmt::format("Fault rules of {}: {}; {} injected since start\n", mount,
                                report.rules.size(), report.injected);
  for (const FaultRuleState& s : report.rules)
    out += fmt::format(" {}: {} ({})\n", s.id, fault_rule_text(s.rule), rule_counts(s));
  return out;
}

// CLOCK_REALTIME minus CLOCK_MONOTONIC now: turns the daemon's fault times (CLOCK_MONOTONIC, the
// same clock machine-wide) into wall-clock ones.
int64_t realtime_offset_ns() {
  timespec mono{}, real{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &real);
  auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
  return ns(real) - ns(mono);
}

// "14:03:07.125" (local time).
std::string clock_time(int64_t unix_ns) {
  const time_t seconds = static_cast<time_t>(unix_ns / 1'000'000'000);
  tm local{};
  localtime_r(&seconds, &local);
  char text[16];
  strftime(text, sizeof(text), "%H:%M:%S", &local);
  return fmt::format("{}.{:03}", text, (unix_ns / 1'000'000) % 1000);
}

// "5.000 s", "120 ms".
std::string duration_text(uint64_t ns) {
  if (ns >= 1'000'000'000) return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
  return fmt::format("{:.3g} ms", static_cast<double>(ns) / 1e6);
}

std::string what_was_done(const FaultEvent& e) {
  switch (e.action) {
    case FaultAction::kShort:
      return fmt::format("short, {} of {} bytes done", e.done_length, e.length);
    case FaultAction::kCorrupt:
      return "corrupted (the reply's bytes, not the file's)";
    case FaultAction::kLostWrite:
      return "lost (acknowledged, not stored)";
    case FaultAction::kBadSectors:
      return fmt::format("{} (bad sector)", fault_error_name(e.error));
    default:
      return fault_error_name(e.error);
  }
}

std::string fault_log_text(const std::string& mount, const std::vector<FaultEvent>& events,
                           int64_t offset_ns) {
  if (events.empty()) return fmt::format("No faults injected on {}\n", mount);
  std::string out;
  for (const FaultEvent& e : events) {
    if (e.action == FaultAction::kStall) {
      out += fmt::format("{} device stall {} (rule {})\n", clock_time(e.at_ns + offset_ns),
                         e.length == 0 ? "until released" : "of " + duration_text(e.length),
                         e.rule_id);
      continue;
    }
    const bool data = e.op == FaultOp::kRead || e.op == FaultOp::kWrite;
    out += fmt::format("{} pid {} {} {}{}: {} (rule {})\n", clock_time(e.at_ns + offset_ns), e.pid,
                       fault_op_name(e.op), e.path,
                       data ? fmt::format(" bytes {}+{}", e.offset, e.length) : "",
                       what_was_done(e), e.rule_id);
  }
  return out;
}

nlohmann::ordered_json fault_log_json(const std::string& mount,
                                      const std::vector<FaultEvent>& events, int64_t offset_ns) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const FaultEvent& e : events) {
    const bool stall = e.action == FaultAction::kStall;
    list.push_back({{"seq", e.seq},
                    {"at_monotonic_ns", e.at_ns},
                    {"at_unix_ns", e.at_ns + offset_ns},
                    {"pid", e.pid},
                    {"op", stall ? nlohmann::ordered_json(nullptr)
                                 : nlohmann::ordered_json(std::string(fault_op_name(e.op)))},
                    {"path", e.path},
                    {"offset_bytes", e.offset},
                    {"length_bytes", stall ? 0 : e.length},
                    {"action", std::string(fault_action_name(e.action))},
                    {"error", e.error == 0 ? nlohmann::ordered_json(nullptr)
                                           : nlohmann::ordered_json(fault_error_name(e.error))},
                    {"done_bytes", e.done_length},
                    {"stall_ns", stall ? e.length : 0},
                    {"rule_id", e.rule_id}});
  }
  return {{"schema_version", kJsonSchemaVersion}, {"mount", mount}, {"faults", list}};
}

}  // namespace

Outcome run_fault(Context& ctx, const CommandArgs& args) {
  const std::string& word = args.positional[0];
  const FaultSubcommand* sub = nullptr;
  for (const FaultSubcommand& s : kSubcommands) {
    if (s.name == word) sub = &s;
  }
  if (sub == nullptr) {
    return usage_error(fmt::format(
        "unknown fault command '{}' (add, list, remove, clear, release or log; see 'dmc fault "
        "--help')",
        word));
  }
  if (args.positional.size() < 2)
    return usage_error(fmt::format("'dmc fault {}' needs <mount>", sub->name));
  const std::vector<std::string> words(args.positional.begin() + 2, args.positional.end());
  if (words.size() < sub->min_words || words.size() > sub->max_words) {
    return usage_error(fmt::format("'dmc fault {}' takes {} after <mount> (see 'dmc fault --help')",
                                   sub->name,
                                   sub->name == "add"      ? "a rule"
                                   : sub->name == "remove" ? "one rule id"
                                                           : "nothing"));
  }
  if (args.has("json") && sub->name != "list" && sub->name != "log")
    return usage_error(fmt::format("option '-json' does not apply to 'dmc fault {}'", sub->name));

  // Every word before anything is asked.
  FaultRule rule;
  if (sub->name == "add") {
    auto parsed = parse_fault_rule(words);
    if (!parsed.ok()) return usage_error(fmt::format("bad rule: {}", parsed.error()));
    rule = std::move(parsed).value();
    if (needs_seed(rule) && !rule.has_seed) {
      rule.seed = std::random_device{}() | (uint64_t{std::random_device{}()} << 32);
      rule.has_seed = true;  // printed below, kept by the daemon
    }
  }
  uint64_t id = 0;
  if (sub->name == "remove") {
    const std::string& text = words[0];
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size() || id == 0) {
      return usage_error(
          fmt::format("'{}' is not a rule id (a number from 'dmc fault list')", text));
    }
  }
  if (sub->changes && !ctx.is_root() && !callers_own_mount(ctx, args.positional[1])) {
    return failure(ExitCode::kNeedsRoot,
                   fmt::format("'dmc fault {}' changes a mount's fault rules and needs root; run "
                               "it with sudo",
                               sub->name));
  }
  auto named = resolve_mount_dir(args.positional[1]);
  if (!named.ok()) return usage_error(named.error());
  Outcome outcome;
  auto mount = running_mount(ctx, *named, outcome);
  if (!mount.ok()) return outcome;

  if (sub->name == "add") {
    auto added = ctx.mounts().fault_add(*mount, rule);
    if (!added.ok()) {
      return failure(ExitCode::kFailed,
                     fmt::format("cannot add the rule to {}: {}", *mount, added.error()));
    }
    ctx.out << fmt::format("{}: {}\n", *added, fault_rule_text(rule));
  } else if (sub->name == "list") {
    auto report = ctx.mounts().fault_list(*mount);
    if (!report.ok()) return failure(ExitCode::kFailed, report.error());
    ctx.out << (args.has("json") ? render_json(fault_list_json(*mount, *report))
                                 : fault_list_text(*mount, *report));
  } else if (sub->name == "log") {
    auto events = ctx.mounts().fault_log(*mount);
    if (!events.ok()) return failure(ExitCode::kFailed, events.error());
    const int64_t offset = realtime_offset_ns();
    ctx.out << (args.has("json") ? render_json(fault_log_json(*mount, *events, offset))
                                 : fault_log_text(*mount, *events, offset));
  } else if (sub->name == "release") {
    auto released = ctx.mounts().fault_release(*mount);
    if (!released.ok()) {
      return failure(ExitCode::kFailed,
                     fmt::format("cannot release the stalls of {}: {}", *mount, released.error()));
    }
    ctx.out << (*released == 0
                    ? fmt::format("No stall in progress on {}\n", *mount)
                    : fmt::format("Released the stall of {} on {}\n",
                                  *released == 1 ? "1 rule" : std::to_string(*released) + " rules",
                                  *mount));
  } else if (sub->name == "remove") {
    if (Status s = ctx.mounts().fault_remove(*mount, id); !s.ok()) {
      return failure(ExitCode::kFailed,
                     fmt::format("cannot remove rule {} of {}: {}", id, *mount, s.error()));
    }
  } else if (Status s = ctx.mounts().fault_clear(*mount); !s.ok()) {
    return failure(ExitCode::kFailed,
                   fmt::format("cannot clear the rules of {}: {}", *mount, s.error()));
  }
  return success();
}

}  // namespace diskcond::dmc
