#include "dmc/cli/command_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace diskcond::dmc {
namespace {

// "-json" / "--json" -> "json"; "" when `word` is not option-shaped.
std::string_view option_name(std::string_view word) {
  if (word.size() < 2 || word[0] != '-') return {};
  std::string_view name = word.substr(word[1] == '-' ? 2 : 1);
  if (name.empty()) return {};
  if (std::isdigit(static_cast<unsigned char>(name[0])) || name[0] == '.')
    return {};  // "-5" is a value
  return name;
}

}  // namespace

bool CommandArgs::has(std::string_view option) const {
  return std::find(options.begin(), options.end(), option) != options.end();
}

const std::string* CommandArgs::value(std::string_view option) const {
  for (const auto& [name, value] : values) {
    if (name == option) return &value;
  }
  return nullptr;
}

bool is_help_word(std::string_view word) {
  return word == "-h" || word == "-help" || word == "--help";
}

Result<CommandArgs> split_command_args(const ArgGrammar& grammar,
                                       std::span<const std::string> words) {
  CommandArgs args;
  bool options_ended = false;
  std::string_view wants_value;  // the value option whose value the next word is
  if (grammar.trailing_command && std::find(words.begin(), words.end(), "--") == words.end() &&
      std::find_if(words.begin(), words.end(),
                   [](const std::string& w) { return is_help_word(w); }) == words.end()) {
    return make_error(fmt::format("missing '-- <command>' for 'dmc {}' (see 'dmc {} --help')",
                                  grammar.command, grammar.command));
  }
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (grammar.trailing_command && word == "--" && wants_value.empty()) {
      args.command.assign(words.begin() + static_cast<ptrdiff_t>(i) + 1, words.end());
      break;
    }
    if (!options_ended && is_help_word(word)) {
      args.help = true;
      return args;
    }
    if (!wants_value.empty()) {
      if (!option_name(word).empty() || word == "--")
        break;  // "-mount -json": the value is missing
      args.values.emplace_back(std::string(wants_value), word);
      wants_value = {};
      continue;
    }
    if (!options_ended && word == "--") {
      options_ended = true;
      continue;
    }
    std::string_view name = options_ended ? std::string_view() : option_name(word);
    if (name.empty()) {
      args.positional.push_back(word);
      continue;
    }
    auto valued = std::find(grammar.value_options.begin(), grammar.value_options.end(), name);
    if (valued != grammar.value_options.end()) {
      if (args.value(*valued) != nullptr) {
        return make_error(fmt::format("option '{}' given twice for 'dmc {}' (see 'dmc {} --help')",
                                      word, grammar.command, grammar.command));
      }
      wants_value = *valued;
      continue;
    }
    auto known = std::find(grammar.options.begin(), grammar.options.end(), name);
    if (known == grammar.options.end()) {
      return make_error(fmt::format("unknown option '{}' for 'dmc {}' (see 'dmc {} --help')", word,
                                    grammar.command, grammar.command));
    }
    if (args.has(*known)) {
      return make_error(fmt::format("option '{}' given twice for 'dmc {}' (see 'dmc {} --help')",
                                    word, grammar.command, grammar.command));
    }
    args.options.emplace_back(*known);
  }
  if (!wants_value.empty()) {
    return make_error(fmt::format("option '-{}' needs a value for 'dmc {}' (see 'dmc {} --help')",
                                  wants_value, grammar.command, grammar.command));
  }
  if (args.positional.size() < grammar.min_positional) {
    size_t missing = args.positional.size();
    std::string_view what = missing < grammar.positional_names.size()
                                ? grammar.positional_names[missing]
                                : std::string_view("argument");
    return make_error(fmt::format("missing {} for 'dmc {}' (see 'dmc {} --help')", what,
                                  grammar.command, grammar.command));
  }
  if (args.positional.size() > grammar.max_positional) {
    return make_error(fmt::format("unexpected argument '{}' for 'dmc {}' (see 'dmc {} --help')",
                                  args.positional[grammar.max_positional], grammar.command,
                                  grammar.command));
  }
  if (grammar.trailing_command && args.command.empty()) {
    return make_error(fmt::format("missing <command> after '--' for 'dmc {}' (see 'dmc {} --help')",
                                  grammar.command, grammar.command));
  }
  return args;
}

}  // namespace diskcond::dmc
