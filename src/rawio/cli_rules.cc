#include "rawio/cli_rules.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <string_view>

#include "core/one_line.h"

namespace diskcond::rawio {

std::string equals_form_error(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word == "--") break;
    size_t equals = word.find('=');
    if (!word.starts_with("--") || equals == std::string_view::npos) continue;
    std::string name(word.substr(2, equals - 2));
    for (const CLI::Option* option : app.get_options()) {
      if (!option->check_lname(name)) continue;
      if (option->get_expected_max() == 0)
        return fmt::format("--{} takes no value (given '{}')", name, word);
      if (equals + 1 == word.size()) return fmt::format("--{}: no value after '='", name);
    }
  }
  return "";
}

bool asks_for_help(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word == "--") return false;
    if (word == "-h" || word == "--help") return true;
  }
  return false;
}

std::string repeated_flag_error(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    // A flag expects no value; each time it is given adds one result.
    if (option->get_expected_max() == 0 && option->count() > 1) {
      return fmt::format("{}: given {} times; give it once", option->get_name(false, true),
                         option->count());
    }
  }
  return "";
}

ParseOutcome parse_by_rules(CLI::App& app, int argc, const char* const* argv,
                            const std::string& command, const std::string& prefix,
                            const std::string& help_tail) {
  const bool help = asks_for_help(argc, argv);  // help wins: nothing else is checked
  if (std::string error = help ? "" : equals_form_error(app, argc, argv); !error.empty())
    return {ParseAction::kUsageError, prefix + one_line(error)};
  try {
    if (help) throw CLI::CallForHelp();
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return {ParseAction::kPrintAndExit, app.help() + help_tail};
  } catch (const CLI::CallForVersion&) {
    return {ParseAction::kPrintAndExit, app.version() + "\n"};
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    // one_line: a value typed with a newline stays on the line.
    return {ParseAction::kUsageError, prefix + one_line(message) + " (see " + command + " --help)"};
  }
  return {};
}

}  // namespace diskcond::rawio
