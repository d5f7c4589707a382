// Rules both rawio command lines (runs and `rawio report`) add to CLI11's: help wins over
// everything else; a flag takes no value ("--json=1", "--all=") and is given at most once ("-R
// -R"), as CLI11 already insists for single-value options ("-n 1m -n 2m"). Options meant to repeat
// (-i,
// --force-write, targets) take several values.
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

}  // namespace diskcond::rawio
