// The dmc command line: finds the command, checks its grammar and root, runs it, and turns its
// Outcome into an exit code and at most one "dmc: <message>" line on stderr.
#pragma once

#include <span>
#include <string>

#include "dmc/cli/context.h"

namespace diskcond::dmc {

// `args` excludes the program name. Returns the process exit code (exit_code.h).
int run_dmc(std::span<const std::string> args, Context& ctx);

// dmc's real wiring: make_fuse_mount_control(), SettingsStore::default_dir(), the default profile
// directories, geteuid() == 0, std::cout and std::cerr.
int dmc_main(int argc, char** argv);

}  // namespace diskcond::dmc
