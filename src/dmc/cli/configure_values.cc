#include "dmc/cli/configure_values.h"

#include <fmt/format.h>

namespace diskcond::dmc {
namespace {

// <type> is not a quantity of the table: configure's one value of its own.
constexpr std::string_view kTypeWord = "type";
constexpr std::string_view kTypeHelp = "SSD or HDD";
constexpr size_t kHelpColumn = 20;  // where --help's text starts: "  " and the padded word

std::vector<const ProfileField*> make_configure_fields() {
  std::vector<const ProfileField*> fields;
  for (const ProfileField& field : profile_fields()) {
    if (!field.configure_word.empty()) fields.push_back(&field);
  }
  return fields;
}

std::string bracketed(std::string_view word) {
  return fmt::format("<{}>", word);
}

// "  word              text\n", each further line of `text` indented to the column.
std::string help_entry(std::string_view word, std::string_view text) {
  std::string out = fmt::format("  {:<{}}", word, kHelpColumn - 2);
  for (size_t start = 0;;) {
    const size_t end = text.find('\n', start);
    out += text.substr(start, end - start);
    out += '\n';
    if (end == std::string_view::npos) return out;
    out.append(kHelpColumn, ' ');
    start = end + 1;
  }
}

}  // namespace

std::span<const ProfileField* const> configure_fields() {
  static const std::vector<const ProfileField*> fields = make_configure_fields();
  return fields;
}

size_t configure_min_values() {
  size_t required = 0;
  for (const ProfileField* field : configure_fields()) required += field->configure_required;
  return 1 + required;
}

size_t configure_max_values() {
  return 1 + configure_fields().size();
}

const std::string& configure_values_synopsis() {
  static const std::string synopsis = [] {
    std::string required = bracketed(kTypeWord), optional;
    for (const ProfileField* field : configure_fields()) {
      std::string& part = field->configure_required ? required : optional;
      if (!part.empty()) part += ' ';
      part += bracketed(field->configure_word);
    }
    return optional.empty() ? required : fmt::format("{} [{}]", required, optional);
  }();
  return synopsis;
}

const std::vector<std::string_view>& configure_required_names() {
  static const std::vector<std::string> storage = [] {
    std::vector<std::string> names = {bracketed(kTypeWord)};
    for (const ProfileField* field : configure_fields()) {
      if (field->configure_required) names.push_back(bracketed(field->configure_word));
    }
    return names;
  }();
  static const std::vector<std::string_view> names(storage.begin(), storage.end());
  return names;
}

const std::string& configure_values_help() {
  static const std::string help = [] {
    std::string out = help_entry(kTypeWord, kTypeHelp);
    for (const ProfileField* field : configure_fields()) {
      out += help_entry(field->configure_word, field->configure_help);
    }
    return out;
  }();
  return help;
}

Profile type_defaults(DiskType type) {
  Profile p = profile_defaults(type);
  p.name = std::string(kCustomProfileName);
  return p;
}

Result<Profile> parse_configure_values(std::span<const std::string> words) {
  if (words.size() < configure_min_values() || words.size() > configure_max_values()) {
    return make_error(fmt::format("configure takes {} to {} values after <mount>, not {}",
                                  configure_min_values(), configure_max_values(), words.size()));
  }
  auto type = parse_disk_type(words[0]);
  if (!type.ok()) return make_error(type.error());
  Profile p = type_defaults(*type);
  for (size_t i = 1; i < words.size(); ++i) {
    const ProfileField& field = *configure_fields()[i - 1];
    auto value = parse_field_text(field, words[i], field.configure_word);
    if (!value.ok()) return make_error(value.error());
    set_field(field, p, *value);
  }
  if (Status s = validate(p); !s.ok()) return make_error(s.error());
  return p;
}

}  // namespace diskcond::dmc
