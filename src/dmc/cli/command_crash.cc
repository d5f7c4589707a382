// dmc crash <mount> [-seed N] [-tear none|sector|page] [-json]: a power cut on a mount started
// (or run) with -crashable, by root or the ordinary user who made the mount. Prints what was lost
// and the seed that gives the same result again.
#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <random>

#include "dmc/cli/command_support.h"
#include "dmc/cli/commands.h"
#include "dmc/cli/mount_path.h"
#include "dmc/mount/control_protocol.h"

namespace diskcond::dmc {
namespace {

Result<uint64_t> parse_seed(const std::string& word) {
  uint64_t seed = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), seed);
  if (error != std::errc() || end != word.data() + word.size() || word.empty())
    return make_error(fmt::format("-seed must be a number from 0 to 2^64-1, not '{}'", word));
  return seed;
}

std::string report_text(const std::string& mount, const mount::CrashReport& r) {
  std::string out = fmt::format(
      "crashed {} (seed {}, tear {}): {} bytes not yet durable lost in {} {}", mount, r.seed,
      tear_name(r.tear), r.lost_bytes, r.files, r.files == 1 ? "file" : "files");
  if (r.survived_bytes != 0) out += fmt::format(", {} bytes survived torn", r.survived_bytes);
  out += fmt::format(", {} created {} removed", r.removed, r.removed == 1 ? "entry" : "entries");
  if (r.restored != 0) out += fmt::format(", {} renamed back or brought back", r.restored);
  out += fmt::format("; {} is no longer conditioned\n", mount);
  for (const std::string& p : r.paths) out += "  " + p + "\n";
  const uint64_t listed = r.paths.size();
  const uint64_t changed = r.files + r.removed + r.restored;
  if (changed > listed) out += fmt::format("  ... {} more\n", changed - listed);
  return out;
}

std::string report_json(const std::string& mount, const mount::CrashReport& r) {
  nlohmann::ordered_json j{{"mount", mount}};
  j.update(mount::crash_report_json(r));
  return j.dump() + "\n";
}

}  // namespace

Outcome run_crash(Context& ctx, const CommandArgs& args) {
  auto mount = resolve_mount_dir(args.positional[0]);
  if (!mount.ok()) return usage_error(mount.error());
  mount::CrashOptions options;
  if (const std::string* word = args.value("tear")) {
    auto tear = parse_tear(*word);
    if (!tear.ok()) return usage_error(tear.error());
    options.tear = *tear;
  }
  if (const std::string* word = args.value("seed")) {
    auto seed = parse_seed(*word);
    if (!seed.ok()) return usage_error(seed.error());
    options.seed = *seed;
  } else {
    std::random_device random;
    options.seed = random() | (uint64_t{random()} << 32);
  }

  if (!ctx.is_root() && !callers_own_mount(ctx, *mount)) {
    return failure(ExitCode::kNeedsRoot,
                   "'dmc crash' needs root, or a mount you made yourself ('dmc run' or 'dmc "
                   "start' without root); run it with sudo");
  }
  Outcome outcome;
  MountState state = read_mount_state(ctx, *mount, outcome);
  if (!outcome.ok()) return outcome;
  if (state.stale()) return failure(ExitCode::kStale, stale_mount_message(state.mount()));
  if (!state.running())
    return failure(ExitCode::kWrongState, fmt::format("{} is not conditioned", *mount));
  const std::string& target = state.mount();
  auto report = ctx.mounts().crash(target, options);
  if (!report.ok()) {
    const bool not_crashable = report.error().find("-crashable") != std::string::npos;
    return failure(not_crashable ? ExitCode::kWrongState : ExitCode::kFailed,
                   fmt::format("cannot crash {}: {}", target, report.error()));
  }
  if (state.inside()) ctx.out << inside_line(*mount, target);
  ctx.out << (args.has("json") ? report_json(target, *report) : report_text(target, *report));
  for (const std::string& e : report->errors)
    ctx.err << fmt::format("dmc: warning: not restored: {}\n", e);
  return report->errors.empty()
             ? success()
             : failure(ExitCode::kFailed, fmt::format("{} of what {} lost could not be restored",
                                                      report->errors.size(), target));
}

}  // namespace diskcond::dmc
