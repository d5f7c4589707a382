#include "dmc/cli/help_text.h"

#include <fmt/format.h>

namespace diskcond::dmc {

std::string top_level_usage() {
  std::string out = "usage: dmc <commands...>\n# commands:\n";
  for (const CommandSpec& spec : command_table()) out += fmt::format("  {}\n", spec.synopsis);
  out += "  help | -h [command]\n";
  out += "  --version\n";
  out += "Run 'dmc <command> --help' for a command's details, 'man dmc' for everything.\n";
  return out;
}

std::string command_help(const CommandSpec& spec) {
  return fmt::format("usage: dmc {}\n\n{}", spec.synopsis, spec.help);
}

std::string version_line() {
  return fmt::format("dmc (diskcond) {}\n", DISKCOND_VERSION);
}

}  // namespace diskcond::dmc
