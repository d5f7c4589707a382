// The quantities of a Profile, each defined once: member, key, unit, range, default. Every form
// of a profile iterates this table: profile files (profile_toml.h), validate(), profile_defaults(),
// and in dmc the JSON object (settings store, control protocol, -json output), `dmc configure`'s
// values and `dmc show`'s lines. Adding a field to Profile and one row here is adding it
// everywhere.
//
// One key vocabulary: `key` is the field's name in a profile file; in JSON the same name carries
// the JSON number's unit where the name does not already say it: "access_time" ->
// "access_time_us", "read_throughput" -> "read_throughput_bytes_per_sec", "spinup_time" ->
// "spinup_time_ns"; "io_queue_depth" and "max_read_bytes" stay as they are.
//
// The name and the disk type are strings, not quantities: each form handles them itself, first.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "core/profile.h"
#include "core/result.h"
#include "core/units.h"

namespace diskcond {

enum class FieldKind {
  kTime,   // int64_t nanoseconds; text: a time ("52ms"), a plain number in text_unit
  kRate,   // uint64_t bytes per second, 0 = unlimited; text: a rate ("50MB/s"), plain = MB/s
  kBytes,  // uint64_t bytes per command, 0 = no limit; text: a size ("16m"), plain = bytes
  kCount,  // uint32_t; text: digits only
  kRatio,  // uint32_t thousandths; text and JSON: the ratio ("4", "2.5", "4x")
};

using ProfileMember = std::variant<int64_t Profile::*, uint64_t Profile::*, uint32_t Profile::*>;

struct ProfileField {
  std::string_view key;      // "io_queue_depth": in profile files, and JSON with json_unit
  std::string_view old_key;  // an earlier spelling a profile file may still use, or empty
  std::string_view name;     // "queue depth": in messages
  std::string_view label;    // "I/O Queue Depth": `dmc show`'s line; empty: no line of its own
  // `dmc configure`'s positional values after <type> are the rows with a configure_word, in the
  // rows' order (macOS's), the required ones first; the synopsis, --help and parsing iterate them.
  std::string_view configure_word;  // macOS configure's name ("ioqueue_depth"); empty: not one
  bool configure_required = false;  // configure needs it; else it is optional (its default)
  std::string_view configure_help;  // its text in `dmc configure --help` ("\n": a further line)
  ProfileMember member;
  FieldKind kind;
  TimeUnit text_unit = TimeUnit::kNanoseconds;  // kTime: a plain number in text
  TimeUnit json_unit = TimeUnit::kNanoseconds;  // kTime: the JSON number's unit; microseconds may
                                                // be fractional ("1.5")
  int64_t min = 0;                              // range of the member's value
  int64_t max = 0;
  bool zero_means_none = false;  // 0 is allowed below min ("no limit")
  std::string_view range_text;   // "1 to 65536", as messages and docs say it
  int64_t default_hdd = 0;       // what a left-out value takes (profile_defaults)
  int64_t default_ssd = 0;
  bool required_in_file = false;  // a profile file must give it
  bool required_in_json = true;   // a JSON profile must carry it (the spin-up keys came later)
};

// In the order of `dmc show`, `dmc configure` and the JSON object.
std::span<const ProfileField> profile_fields();

// The field a profile file's key names (its key or old_key); nullptr if none.
const ProfileField* find_profile_field(std::string_view key);

// The field's JSON key: key plus the JSON number's unit ("access_time_us").
std::string json_key(const ProfileField& field);

// The JSON number is the member's value divided by this: 1000 for microseconds of a time kept in
// nanoseconds and for a ratio kept in thousandths (the number may then be fractional), else 1.
int64_t json_divisor(const ProfileField& field);

// The field's value in `profile`, as its member's type (visit with a generic lambda).
template <class F>
decltype(auto) visit_field(const ProfileField& field, const Profile& profile, F&& f) {
  return std::visit([&](auto member) -> decltype(auto) { return f(profile.*member); },
                    field.member);
}

// Whether `value` (any integer type) is in the field's range.
template <class T>
bool in_range(const ProfileField& field, T value) {
  if (field.zero_means_none && value == 0) return true;
  return std::cmp_greater_equal(value, field.min) && std::cmp_less_equal(value, field.max);
}

// REQUIRES: in_range(field, value).
void set_field(const ProfileField& field, Profile& profile, int64_t value);

// A value as users type it, in the field's unit (a plain number in text_unit, MB/s, bytes or a
// count), range checked. Errors name the value as `as` (the key, or configure's word):
// "as: invalid time 'x' (...)", "invalid as '1.5' (a whole number from 1 to 65536)",
// "as '61s' is out of range (0 to 60 s)".
Result<int64_t> parse_field_text(const ProfileField& field, std::string_view text,
                                 std::string_view as);

// "queue depth 0 is out of range (1 to 65536)": `value` (its digits) is not in the field's range.
Status out_of_range(const ProfileField& field, const std::string& value);

// Ok when `value` is in the field's range, else out_of_range().
template <class T>
Status check_value(const ProfileField& field, T value) {
  return in_range(field, value) ? ok_status() : out_of_range(field, std::to_string(value));
}

// check_value() of the field's value in `profile`.
Status check_field(const ProfileField& field, const Profile& profile);

}  // namespace diskcond
