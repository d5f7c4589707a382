#include "dmc/cli/configure_values.h"

#include <fmt/format.h>

#include <vector>

#include "core/profile_fields.h"

namespace diskcond::dmc {
namespace {

// The fields configure takes after <type>, in macOS's order (profile_fields.h's configure_word).
std::vector<const ProfileField*> configure_fields() {
  std::vector<const ProfileField*> fields;
  for (const ProfileField& field : profile_fields()) {
    if (!field.configure_word.empty()) fields.push_back(&field);
  }
  return fields;
}

}  // namespace

Profile type_defaults(DiskType type) {
  Profile p = profile_defaults(type);
  p.name = std::string(kCustomProfileName);
  return p;
}

Result<Profile> parse_configure_values(std::span<const std::string> words) {
  if (words.size() < kConfigureMinValues || words.size() > kConfigureMaxValues) {
    return make_error(fmt::format("configure takes {} to {} values after <mount>, not {}",
                                  kConfigureMinValues, kConfigureMaxValues, words.size()));
  }
  auto type = parse_disk_type(words[0]);
  if (!type.ok()) return make_error(type.error());
  Profile p = type_defaults(*type);
  const std::vector<const ProfileField*> fields = configure_fields();
  if (fields.size() != kConfigureMaxValues - 1)
    return make_error("configure's fields and its values disagree");
  for (size_t i = 1; i < words.size(); ++i) {
    const ProfileField& field = *fields[i - 1];
    auto value = parse_field_text(field, words[i], field.configure_word);
    if (!value.ok()) return make_error(value.error());
    set_field(field, p, *value);
  }
  if (Status s = validate(p); !s.ok()) return make_error(s.error());
  return p;
}

}  // namespace diskcond::dmc
