// The table of dmc commands: name, grammar, whether it needs root, handler, and help text. The
// dispatcher (dmc_cli.cc), `dmc help` and `dmc <command> --help` all read this one table, so a
// command's help cannot drift from what it accepts.
#pragma once

#include <span>
#include <string_view>

#include "dmc/cli/command_args.h"
#include "dmc/cli/context.h"
#include "dmc/cli/exit_code.h"

namespace diskcond::dmc {

using CommandHandler = Outcome (*)(Context&, const CommandArgs&);

enum class Who {
  kAnyone,  // reads only
  kOwner,   // root, or an ordinary user on their own directory or mount (the command checks)
  kRoot,    // root only (the dispatcher checks)
};

struct CommandSpec {
  std::string_view name;
  std::string_view synopsis;  // the usage line after "dmc ", macOS words and order
  ArgGrammar grammar;
  Who who = Who::kAnyone;  // who may run it
  CommandHandler run = nullptr;
  std::string_view help;  // the paragraphs `dmc <command> --help` prints after the usage line
};

// In the order `dmc help` lists them (macOS's order, then diskcond's own commands).
std::span<const CommandSpec> command_table();
// nullptr when there is no such command.
const CommandSpec* find_command(std::string_view name);

}  // namespace diskcond::dmc
