#include "core/flat_toml.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <optional>

namespace diskcond {
namespace {

bool is_bare_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

void skip_blanks(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

// Appends code point `cp` as UTF-8; false for surrogates and values past U+10FFFF.
bool append_utf8(std::string& out, uint32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return true;
}

// Parses a basic string body after the opening quote; consumes through the closing quote.
Result<std::string> basic_string(std::string_view& s) {
  std::string out;
  while (!s.empty()) {
    char c = s.front();
    s.remove_prefix(1);
    if (c == '"') return out;
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
      return make_error("control character in a string");
    if (c != '\\') {
      out += c;
      continue;
    }
    if (s.empty()) break;
    char e = s.front();
    s.remove_prefix(1);
    switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case 'b':
        out += '\b';
        break;
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'f':
        out += '\f';
        break;
      case 'r':
        out += '\r';
        break;
      case 'u':
      case 'U': {
        const size_t digits = e == 'u' ? 4 : 8;
        if (s.size() < digits) return make_error("short \\u escape");
        uint32_t cp = 0;
        for (size_t i = 0; i < digits; ++i) {
          const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
          if (!std::isxdigit(static_cast<unsigned char>(h))) return make_error("bad \\u escape");
          cp = cp * 16 + static_cast<uint32_t>(h <= '9' ? h - '0' : h - 'a' + 10);
        }
        s.remove_prefix(digits);
        if (!append_utf8(out, cp)) return make_error("\\u escape is not a Unicode scalar value");
        break;
      }
      default:
        return make_error(fmt::format("unknown escape '\\{}'", e));
    }
  }
  return make_error("unterminated string");
}

Result<std::string> literal_string(std::string_view& s) {
  size_t end = s.find('\'');
  if (end == std::string_view::npos) return make_error("unterminated string");
  std::string out(s.substr(0, end));
  for (char c : out) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
      return make_error("control character in a string");
  }
  s.remove_prefix(end + 1);
  return out;
}

// Digits with single underscores between them; no sign, no leading zero (as TOML).
Result<std::string> integer(std::string_view& s) {
  std::string digits;
  bool last_underscore = true;  // forbids a leading underscore
  while (!s.empty() && (std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '_')) {
    char c = s.front();
    if (c == '_' && last_underscore) return make_error("misplaced '_' in a number");
    last_underscore = c == '_';
    if (c != '_') digits += c;
    s.remove_prefix(1);
  }
  if (digits.empty() || last_underscore)
    return make_error("expected a value: \"text\", 'text' or a number");
  if (digits.size() > 1 && digits[0] == '0') return make_error("leading zero in a number");
  return digits;
}

// A float as TOML writes it, without sign, inf or nan: digits with single underscores between
// them, then a fraction, an exponent or both. Its text without underscores.
Result<std::string> float_number(std::string_view& s) {
  std::string text;
  auto digits = [&](bool required) -> bool {
    const size_t before = text.size();
    bool last_underscore = true;
    while (!s.empty() && (std::isdigit(static_cast<unsigned char>(s.front())) ||
                          (s.front() == '_' && !last_underscore))) {
      last_underscore = s.front() == '_';
      if (!last_underscore) text += s.front();
      s.remove_prefix(1);
    }
    return !last_underscore || (!required && text.size() == before);
  };
  if (!digits(true)) return make_error("expected a value: \"text\", 'text', a number or true");
  if (text.size() > 1 && text[0] == '0') return make_error("leading zero in a number");
  bool fraction_or_exponent = false;
  if (!s.empty() && s.front() == '.') {
    text += '.';
    s.remove_prefix(1);
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front())) || !digits(true))
      return make_error("a float needs digits after '.'");
    fraction_or_exponent = true;
  }
  if (!s.empty() && (s.front() == 'e' || s.front() == 'E')) {
    text += 'e';
    s.remove_prefix(1);
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
      text += s.front();
      s.remove_prefix(1);
    }
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front())) || !digits(true))
      return make_error("a float needs digits in its exponent");
    fraction_or_exponent = true;
  }
  if (!fraction_or_exponent) return make_error("not a float");
  return text;
}

Result<FlatTomlEntry> parse_line(std::string_view s, int line, const FlatTomlOptions& options) {
  FlatTomlEntry entry;
  entry.line = line;
  size_t key_end = 0;
  while (key_end < s.size() && is_bare_key_char(s[key_end])) ++key_end;
  if (key_end == 0) {
    if (!s.empty() && s.front() == '[')
      return make_error("tables are not supported in a profile file");
    return make_error("expected key = value");
  }
  entry.key = std::string(s.substr(0, key_end));
  s.remove_prefix(key_end);
  skip_blanks(s);
  if (s.empty() || s.front() != '=')
    return make_error(fmt::format("expected '=' after '{}'", entry.key));
  s.remove_prefix(1);
  skip_blanks(s);
  Result<std::string> value = make_error("expected a value");
  if (s.starts_with("\"\"\"") || s.starts_with("'''")) {
    return make_error("multi-line strings are not supported in a profile file");
  } else if (!s.empty() && s.front() == '"') {
    s.remove_prefix(1);
    value = basic_string(s);
    entry.is_string = true;
  } else if (!s.empty() && s.front() == '\'') {
    s.remove_prefix(1);
    value = literal_string(s);
    entry.is_string = true;
  } else if (options.floats_and_booleans && (s.starts_with("true") || s.starts_with("false"))) {
    const bool yes = s.starts_with("true");
    value = std::string(yes ? "true" : "false");
    s.remove_prefix(yes ? 4 : 5);
    entry.kind = FlatTomlKind::kBoolean;
  } else if (options.floats_and_booleans &&
             s.substr(0, s.find_first_of(" \t#")).find_first_of(".eE") != std::string_view::npos) {
    value = float_number(s);
    entry.kind = FlatTomlKind::kFloat;
  } else {
    value = integer(s);
  }
  if (entry.is_string) entry.kind = FlatTomlKind::kString;
  if (!value.ok()) return make_error(value.error());
  entry.value = std::move(value).value();
  skip_blanks(s);
  if (!s.empty() && s.front() != '#')
    return make_error(fmt::format("unexpected text after the value of '{}'", entry.key));
  return entry;
}

// "[[name]]" (blanks allowed inside and around, a comment after): the name; else "".
std::string array_table_name(std::string_view line) {
  if (!line.starts_with("[[")) return "";
  line.remove_prefix(2);
  skip_blanks(line);
  size_t end = 0;
  while (end < line.size() && is_bare_key_char(line[end])) ++end;
  std::string name(line.substr(0, end));
  line.remove_prefix(end);
  skip_blanks(line);
  if (name.empty() || !line.starts_with("]]")) return "";
  line.remove_prefix(2);
  skip_blanks(line);
  return line.empty() || line.front() == '#' ? name : "";
}

}  // namespace

Result<std::vector<FlatTomlEntry>> parse_flat_toml(std::string_view text, const std::string& origin,
                                                   FlatTomlOptions options) {
  std::vector<FlatTomlEntry> entries;
  std::map<std::string, int> tables;  // name -> tables of that name so far
  std::string table;
  int table_index = -1, table_line = 0;
  size_t table_start = 0;  // entries of the current table begin here
  int line_number = 0;
  while (!text.empty()) {
    ++line_number;
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    skip_blanks(line);
    if (line.empty() || line.front() == '#') continue;
    if (options.arrays_of_tables && line.front() == '[') {
      table = array_table_name(line);
      if (table.empty()) {
        return make_error(fmt::format("{}:{}: only arrays of tables ([[name]]) are read here",
                                      origin, line_number));
      }
      table_index = tables[table]++;
      table_line = line_number;
      table_start = entries.size();
      continue;
    }
    auto entry = parse_line(line, line_number, options);
    if (!entry.ok())
      return make_error(fmt::format("{}:{}: {}", origin, line_number, entry.error()));
    for (size_t i = table_start; i < entries.size(); ++i) {
      const FlatTomlEntry& seen = entries[i];
      if (seen.key == entry->key) {
        return make_error(fmt::format("{}:{}: duplicate key '{}' (first on line {})", origin,
                                      line_number, entry->key, seen.line));
      }
    }
    entry->table = table;
    entry->table_index = table_index;
    entry->table_line = table_line;
    entries.push_back(std::move(entry).value());
  }
  return entries;
}

}  // namespace diskcond
