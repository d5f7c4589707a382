// The values of `dmc configure`, from words to a Profile named "Custom".
//
//   <type> <access_time> <read_throughput> <write_throughput>
//   [<ioqueue_depth> <maxreadcnt> <maxwritecnt> <segreadcnt> <segwritecnt>]
//
// type: SSD or HDD (any case). access_time: microseconds when plain ("52222"), or with a unit
// ("52ms", "100us"). Throughputs: MB/s (2^20 bytes) when plain, or with a unit ("1.5GB/s");
// 0 = unlimited. ioqueue_depth: 1..65536. maxreadcnt/maxwritecnt: bytes per command, plain or with
// a unit ("16m"); 0 = no limit, else at least 512. segreadcnt/segwritecnt: 0..65536. The optional
// fields may be given from the left; the rest take type_defaults(type). Each value's unit, range
// and default are its field's in core/profile_fields.h (configure_word names it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/profile.h"
#include "core/result.h"

namespace diskcond::dmc {

inline constexpr std::string_view kCustomProfileName = "Custom";
inline constexpr size_t kConfigureMinValues = 4;
inline constexpr size_t kConfigureMaxValues = 9;  // <type> and the 8 fields with a configure_word

// profile_defaults(type) named "Custom": what configure's left-out values take.
Profile type_defaults(DiskType type);

// `words` are the values after <mount>: kConfigureMinValues to kConfigureMaxValues of them.
// Errors name the field and the word; the result passed validate().
Result<Profile> parse_configure_values(std::span<const std::string> words);

}  // namespace diskcond::dmc
