// Rules every rawio command line (runs, `rawio report`, `rawio compare`) adds to CLI11's: help
// wins over everything else; a flag takes no value ("--json=1", "--all=") and is given at most
// once ("-R -R"), as CLI11 already insists for single-value options ("-n 1m -n 2m"). Options meant
// to repeat (-i, --force-write, targets) take several values. parse_by_rules() applies them.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace diskcond::rawio {

// Call before parsing: "" or the one-line error for a "--name=value" word that is wrong: a flag
// given a value ("--json=1", "--all="; CLI11 would take "--json=false" as "not --json"), or an
// option given an empty one ("--size=", which CLI11 would fill with the next word, the target).
// Words after "--" are not looked at.
std::string equals_form_error(const CLI::App& app, int argc, const char* const* argv);

// True when a word after argv[0] and before any "--" is -h or --help: help is printed whatever
// else the line holds, as dmc does, even when another value is bad.
bool asks_for_help(int argc, const char* const* argv);

// Call after parsing: "" or the one-line error naming a flag given more than once.
std::string repeated_flag_error(const CLI::App& app);

// What parsing a command line came to: run it; print `text` on stdout and exit 0 (--help,
// --version); or print `text`, one line, on stderr and exit with a usage error.
enum class ParseAction { kRun, kPrintAndExit, kUsageError };
struct ParseOutcome {
  using Action = ParseAction;
  Action action = Action::kRun;
  std::string text;
};

// A command line parsed: the outcome and, when kRun, what to run.
template <class Invocation>
struct ParsedLine : ParseOutcome {
  Invocation invocation;
};

// Parses argv with `app`, the command line of `command` ("rawio", "rawio report"): -h/--help
// anywhere gives app's help followed by `help_tail`; --version (where app has it) its version; a
// wrong "--name=value" (equals_form_error) or CLI11's refusal is a usage error of one line after
// `prefix` ("report: ", or ""), CLI11's followed by " (see <command> --help)". On kRun, app has
// parsed argv; the checks that follow parsing are the caller's.
ParseOutcome parse_by_rules(CLI::App& app, int argc, const char* const* argv,
                            const std::string& command, const std::string& prefix,
                            const std::string& help_tail);

}  // namespace diskcond::rawio
