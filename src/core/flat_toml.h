// A strict, flat subset of TOML for profile files: one `key = value` per line, where a value is a
// "basic string" (escapes \" \\ \b \t \n \f \r \uXXXX \UXXXXXXXX), a 'literal string' or a
// non-negative integer (digits, with _ between them); `#` starts a comment; blank lines are fine.
// Tables, arrays, floats, booleans and multi-line strings are refused with a clear error.
//
// Written by hand because Debian 12's toml++ 3.3 fails under fuzzing (undefined behaviour on
// non-ASCII text, an assertion on "[ \\"); every file this accepts is valid TOML.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diskcond {

struct FlatTomlEntry {
  std::string key;
  std::string value;  // the string's contents, or the integer's digits (no underscores)
  bool is_string = false;
  int line = 0;  // 1-based
};

// Errors read "<origin>:<line>: <what>". Duplicate keys are an error.
Result<std::vector<FlatTomlEntry>> parse_flat_toml(std::string_view text,
                                                   const std::string& origin);

}  // namespace diskcond
