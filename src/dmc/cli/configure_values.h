// The values of `dmc configure`, from words to a Profile named "Custom".
//
//   <type> <access_time> <read_throughput> <write_throughput>
//   [<ioqueue_depth> <maxreadcnt> <maxwritecnt> <segreadcnt> <segwritecnt>]
//
// type: SSD or HDD (any case). The values after it are the fields of core/profile_fields.h that
// have a configure_word, in the table's order (configure_fields()); each value's word, unit,
// range, default, whether it is required and its --help text are its row's. Plain numbers are in
// the field's unit: access_time microseconds ("52222", or "52ms"), throughputs MB/s (2^20 bytes;
// 0 = unlimited), maxreadcnt/maxwritecnt bytes ("16m"), the rest counts. The optional values may
// be given from the left; the rest take type_defaults(type). Adding a row with a configure_word
// adds a value to the synopsis, the --help text and the parser.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/profile.h"
#include "core/profile_fields.h"
#include "core/result.h"

namespace diskcond::dmc {

inline constexpr std::string_view kCustomProfileName = "Custom";

// The fields configure takes after <type>, in order: profile_fields()'s rows with a
// configure_word.
std::span<const ProfileField* const> configure_fields();

// How many values configure takes after <mount>: <type> and the required fields (4), up to
// <type> and every field (9).
size_t configure_min_values();
size_t configure_max_values();

// The values in the synopsis: "<type> <access_time> ... [<ioqueue_depth> ... <segwritecnt>]".
const std::string& configure_values_synopsis();

// The required values' names, "<type>" first, for "missing <access_time>" messages.
const std::vector<std::string_view>& configure_required_names();

// One entry a value for `dmc configure --help`: "  type              SSD or HDD\n", ...
const std::string& configure_values_help();

// profile_defaults(type) named "Custom": what configure's left-out values take.
Profile type_defaults(DiskType type);

// `words` are the values after <mount>: configure_min_values() to configure_max_values() of them.
// Errors name the field and the word; the result passed validate().
Result<Profile> parse_configure_values(std::span<const std::string> words);

}  // namespace diskcond::dmc
