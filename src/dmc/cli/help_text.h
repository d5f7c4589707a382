// The help dmc prints: `dmc help` / `dmc -h` (macOS's usage shape) and `dmc <command> --help`.
#pragma once

#include <string>

#include "dmc/cli/command_table.h"

namespace diskcond::dmc {

// "usage: dmc <commands...>", "# commands:", then "  <synopsis>" per command, as macOS prints it,
// with diskcond's additions (boot, -nocache, -force, -json on show/list, --version).
std::string top_level_usage();

// "usage: dmc <synopsis>", a blank line, then the command's help paragraphs.
std::string command_help(const CommandSpec& spec);

// "dmc (diskcond) <version>".
std::string version_line();

}  // namespace diskcond::dmc
