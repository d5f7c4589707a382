// Error lines quote what the user typed, and what the user typed can hold a newline or an escape
// sequence ("dmc show $'a\nb'"). one_line() makes any text safe to print as one line, so "every
// error is one line on stderr" holds whatever the input was.
#pragma once

#include <string>
#include <string_view>

namespace diskcond {

// `text` with each control character (bytes 0-31 and 127) written as a C escape: "\n", "\r", "\t",
// or "\x1b" and the like. Everything else, UTF-8 included, is kept as it is.
std::string one_line(std::string_view text);

}  // namespace diskcond
