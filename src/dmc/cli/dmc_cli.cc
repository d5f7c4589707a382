#include "dmc/cli/dmc_cli.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <exception>
#include <iostream>
#include <memory>
#include <vector>

#include "core/one_line.h"
#include "dmc/boot_service.h"
#include "dmc/cli/command_table.h"
#include "dmc/cli/help_text.h"
#include "dmc/disk/disk_control.h"

namespace diskcond::dmc {
namespace {

// `dmc help [command]`, `dmc -h [command]`.
Outcome run_help(Context& ctx, std::span<const std::string> words) {
  if (words.empty()) {
    ctx.out << top_level_usage();
    return success();
  }
  if (words.size() > 1)
    return usage_error(fmt::format("unexpected argument '{}' for 'dmc help'", words[1]));
  if (words[0] == "help" || is_help_word(words[0])) {  // help about help: the usage, which lists it
    ctx.out << top_level_usage();
    return success();
  }
  const CommandSpec* spec = find_command(words[0]);
  if (spec == nullptr)
    return usage_error(fmt::format("unknown command '{}' (see 'dmc help')", words[0]));
  ctx.out << command_help(*spec);
  return success();
}

Outcome dispatch(std::span<const std::string> args, Context& ctx) {
  if (args.empty()) return usage_error("missing command (see 'dmc help')");
  const std::string& name = args[0];
  std::span<const std::string> rest = args.subspan(1);
  if (name == "help" || is_help_word(name)) return run_help(ctx, rest);
  if (name == "--version" || name == "-version") {
    if (!rest.empty())
      return usage_error(fmt::format("unexpected argument '{}' after '{}'", rest[0], name));
    ctx.out << version_line();
    return success();
  }
  const CommandSpec* spec = find_command(name);
  if (spec == nullptr)
    return usage_error(fmt::format("unknown command '{}' (see 'dmc help')", name));
  auto words = split_command_args(spec->grammar, rest);
  if (!words.ok()) return usage_error(words.error());
  if (words->help) {
    ctx.out << command_help(*spec);
    return success();
  }
  if (spec->who == Who::kRoot && !ctx.is_root()) {
    return failure(ExitCode::kNeedsRoot,
                   fmt::format("'dmc {}' changes mount settings and needs root; run it with sudo",
                               spec->name));
  }
  return spec->run(ctx, *words);
}

// Context::processes_inside in dmc itself: /proc. Once `dir` is conditioned, files on the mount's
// own device are seen through it and not counted.
std::vector<mount::ProcessInside> processes_inside(const std::string& dir, bool mounted,
                                                   pid_t daemon_pid) {
  mount::ProcessScan scan;
  scan.ignore = {::getpid()};
  if (daemon_pid > 0) scan.ignore.push_back(daemon_pid);
  struct stat st {};
  if (mounted && ::stat(dir.c_str(), &st) == 0) scan.except_device = st.st_dev;
  return mount::find_processes_inside(dir, scan);
}

}  // namespace

int run_dmc(std::span<const std::string> args, Context& ctx) {
  Outcome outcome;
  try {
    outcome = dispatch(args, ctx);
  } catch (const std::exception& e) {
    outcome = failure(ExitCode::kFailed, fmt::format("internal error: {}", e.what()));
  }
  ctx.out.flush();
  if (!outcome.ok() && !outcome.quiet) ctx.err << "dmc: " << one_line(outcome.message) << "\n";
  return static_cast<int>(outcome.code);
}

int dmc_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::unique_ptr<mount::MountControl> mounts;
  std::unique_ptr<disk::DiskControl> disks;
  Context ctx{
      .mounts = [&mounts]() -> mount::MountControl& {
        if (!mounts) mounts = mount::make_fuse_mount_control();
        return *mounts;
      },
      .disks = [&disks]() -> disk::DiskControl& {
        if (!disks) disks = disk::make_loop_disk_control();
        return *disks;
      },
      .store = SettingsStore(SettingsStore::default_dir()),
      .profile_dirs = ProfileCatalog::default_dirs(),
      .is_root = [] { return ::geteuid() == 0; },
      .uid = [] { return ::geteuid(); },
      .out = std::cout,
      .err = std::cerr,
      .err_is_terminal = [] { return ::isatty(STDERR_FILENO) == 1; },
      .processes_inside = processes_inside,
      .boot_problem = [] { return boot_service_problem(); },
  };
  return run_dmc(args, ctx);
}

}  // namespace diskcond::dmc
