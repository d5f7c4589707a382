// Splits one command's words into positional arguments and options, macOS style: options are
// single-dash words (-json, -boot); "--json" is accepted too. "-h", "-help" and "--help" ask for
// the command's help. A word like "-5" or "-.5" is a (bad) value, not an option, so the value's own
// parser names it. "--" ends the options (for a mount path that starts with '-'). An option given
// twice ("-json --json") is an error, like any other word dmc cannot make sense of. A grammar
// with a trailing command (`dmc run ... -- <command> [args...]`) ends at the first "--" instead.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace diskcond::dmc {

struct ArgGrammar {
  std::string_view command;  // for messages: "start"
  size_t min_positional = 0;
  size_t max_positional = 0;
  std::vector<std::string_view> options;           // option names without the dash: "json", "boot"
  std::vector<std::string_view> positional_names;  // for "missing <mount>" messages
  // Options that take the next word as their value ("-mount /mnt/disk"), without the dash. The
  // value may not look like an option; each at most once.
  std::vector<std::string_view> value_options = {};
  // `dmc run`: the words after the first "--" are a command, taken as they are (its options are
  // its own, "--help" too); the "--" and at least one word after it are required.
  bool trailing_command = false;
};

struct CommandArgs {
  std::vector<std::string> positional;
  std::vector<std::string> options;  // as named in the grammar, each at most once
  bool help = false;                 // -h / -help / --help was given; nothing else is checked
  std::vector<std::pair<std::string, std::string>> values;  // value options given: name, value
  std::vector<std::string> command;  // with trailing_command: the words after "--"

  bool has(std::string_view option) const;
  // The value of a value option, nullptr when it was not given.
  const std::string* value(std::string_view option) const;
};

// Errors are one line naming the offending word and pointing at "dmc <command> --help".
Result<CommandArgs> split_command_args(const ArgGrammar& grammar,
                                       std::span<const std::string> words);

// True for "-h", "-help", "--help".
bool is_help_word(std::string_view word);

}  // namespace diskcond::dmc
