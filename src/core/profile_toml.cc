#include "core/profile_toml.h"

#include <fmt/format.h>

#include "core/flat_toml.h"
#include "core/profile_fields.h"

namespace diskcond {
namespace {

// The entry for `field` (its key, or the old spelling); nullptr when the file leaves it out.
const FlatTomlEntry* find_entry(const std::vector<FlatTomlEntry>& entries,
                                const ProfileField& field) {
  for (const FlatTomlEntry& e : entries) {
    if (find_profile_field(e.key) == &field) return &e;
  }
  return nullptr;
}

const FlatTomlEntry* find_entry(const std::vector<FlatTomlEntry>& entries, std::string_view key) {
  for (const FlatTomlEntry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

Error missing(const std::string& origin, std::string_view key) {
  return make_error(fmt::format("{}: missing key '{}'", origin, key));
}

Error bad_value(const std::string& origin, const FlatTomlEntry& e, const std::string& what) {
  return make_error(fmt::format("{}:{}: {}: {}", origin, e.line, e.key, what));
}

}  // namespace

Result<Profile> parse_profile_toml(std::string_view text, const std::string& origin) {
  auto parsed = parse_flat_toml(text, origin);
  if (!parsed.ok()) return make_error(parsed.error());
  const std::vector<FlatTomlEntry>& t = *parsed;
  for (const FlatTomlEntry& e : t) {
    if (e.key == "name" || e.key == "type" || e.key == "latency_table") continue;
    const ProfileField* field = find_profile_field(e.key);
    if (field == nullptr)
      return make_error(fmt::format("{}:{}: unknown key '{}'", origin, e.line, e.key));
    if (const FlatTomlEntry* first = find_entry(t, *field); first != &e) {
      return make_error(fmt::format("{}:{}: '{}' gives {} again (line {})", origin, e.line, e.key,
                                    field->key, first->line));
    }
  }
  // Left-out keys take the defaults `dmc configure` uses for the same type. Errors come in key
  // order: name, type, then the fields.
  const FlatTomlEntry* name = find_entry(t, "name");
  const FlatTomlEntry* type = find_entry(t, "type");
  if (name == nullptr) return missing(origin, "name");
  if (type == nullptr) return missing(origin, "type");
  auto disk_type = parse_disk_type(type->value);
  if (!disk_type.ok()) return bad_value(origin, *type, disk_type.error());
  Profile p = profile_defaults(*disk_type);
  p.name = name->value;
  if (const FlatTomlEntry* table = find_entry(t, "latency_table")) {
    if (!table->is_string)
      return bad_value(origin, *table, "a string such as \"0.5:0.9,0.99:3,1:8\"");
    p.latency_table = table->value;
  }
  for (const ProfileField& field : profile_fields()) {
    const FlatTomlEntry* e = find_entry(t, field);
    if (e == nullptr) {
      if (field.required_in_file) return missing(origin, field.key);
      continue;
    }
    auto value = parse_field_text(field, e->value, e->key);
    if (!value.ok()) return make_error(fmt::format("{}:{}: {}", origin, e->line, value.error()));
    set_field(field, p, *value);
  }
  if (Status v = validate(p); !v.ok()) return make_error(fmt::format("{}: {}", origin, v.error()));
  return p;
}

}  // namespace diskcond
