// A strict, flat subset of TOML for profile files: one `key = value` per line, where a value is a
// "basic string" (escapes \" \\ \b \t \n \f \r \uXXXX \UXXXXXXXX), a 'literal string' or a
// non-negative integer (digits, with _ between them); `#` starts a comment; blank lines are fine.
// Tables, arrays, floats, booleans and multi-line strings are refused with a clear error.
//
// Faults files (core/fault_rules.h) ask for a little more with FlatTomlOptions: arrays of tables
// (`[[rule]]` lines, each starting a table of its own, keys unique within it), floats (0.25,
// 1e-3, 2.5E+2; no sign, inf or nan) and booleans (true, false). Still no other tables, no arrays,
// no inline tables, no dotted or quoted keys, no dates.
//
// Written by hand because Debian 12's toml++ 3.3 fails under fuzzing (undefined behaviour on
// non-ASCII text, an assertion on "[ \\"); every file this accepts is valid TOML.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diskcond {

enum class FlatTomlKind { kString, kInteger, kFloat, kBoolean };

struct FlatTomlEntry {
  std::string key;
  std::string value;  // the string's contents, the number's text without underscores, or
                      // "true"/"false"
  bool is_string = false;
  int line = 0;  // 1-based
  FlatTomlKind kind = FlatTomlKind::kInteger;
  // In an array of tables: its name ("rule"), the table's number (0, 1, ...) and the line of its
  // `[[name]]`; at the top level "", -1 and 0.
  std::string table;
  int table_index = -1;
  int table_line = 0;
};

struct FlatTomlOptions {
  bool arrays_of_tables = false;
  bool floats_and_booleans = false;
};

// Errors read "<origin>:<line>: <what>". Duplicate keys (in one table) are an error.
Result<std::vector<FlatTomlEntry>> parse_flat_toml(std::string_view text, const std::string& origin,
                                                   FlatTomlOptions options = {});

}  // namespace diskcond
