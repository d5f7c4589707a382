#include "core/profile_catalog.h"

#include <fmt/format.h>
#include <strings.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "core/units.h"

namespace diskcond {
namespace {

namespace fs = std::filesystem;

std::string where(const std::string& origin, const toml::source_region& src) {
  return fmt::format("{}:{}", origin, src.begin.line);
}

// Reads `key` as text (a TOML string or number), parses it with `parse`, stores it in `out`.
template <class T, class Parse>
Status read_field(const toml::table& t, std::string_view key, const std::string& origin, bool required,
                  Parse parse, T& out) {
  const toml::node* node = t.get(key);
  if (node == nullptr) {
    if (required) return make_error(fmt::format("{}: missing key '{}'", origin, key));
    return ok_status();
  }
  std::string text;
  if (auto s = node->value<std::string>()) {
    text = *s;
  } else if (auto i = node->value<int64_t>()) {
    if (*i < 0) return make_error(fmt::format("{}: '{}' must not be negative", where(origin, node->source()), key));
    text = std::to_string(*i);
  } else {
    return make_error(fmt::format("{}: '{}' must be a string or a number", where(origin, node->source()), key));
  }
  auto parsed = parse(text);
  if (!parsed.ok()) return make_error(fmt::format("{}: {}: {}", where(origin, node->source()), key, parsed.error()));
  out = static_cast<T>(*parsed);
  return ok_status();
}

Result<uint64_t> parse_count(std::string_view text) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v > UINT32_MAX) {
    return make_error(fmt::format("invalid count '{}'", text));
  }
  return v;
}

const char* const kKnownKeys[] = {"name", "type", "access_time", "read_throughput", "write_throughput",
                                  "queue_depth", "max_read_bytes", "max_write_bytes", "max_read_segments",
                                  "max_write_segments", "spinup_idle", "spinup_time"};

// toml++ 3.3 (Debian 12) reaches __builtin_unreachable() on many non-ASCII characters outside
// strings (its generated is_non_ascii_horizontal_whitespace() misses whole ranges; found by
// fuzz/profile_toml_fuzz.cc), and where a string starts depends on its own error recovery. So
// profile files are ASCII; other characters are written as \uXXXX escapes inside strings.
// Returns the 1-based line of the first non-ASCII byte, or 0.
int line_of_non_ascii(std::string_view text) {
  int line = 1;
  for (char c : text) {
    if (c == '\n') ++line;
    if (static_cast<unsigned char>(c) >= 0x80) return line;
  }
  return 0;
}

}  // namespace

Result<Profile> parse_profile_toml(std::string_view text, const std::string& origin) {
  if (int line = line_of_non_ascii(text); line != 0) {
    return make_error(fmt::format("{}:{}: non-ASCII character (write it as \\uXXXX in a string)", origin, line));
  }
  toml::table t;
  try {
    t = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    return make_error(fmt::format("{}:{}: {}", origin, e.source().begin.line, e.description()));
  }
  for (auto&& [key, node] : t) {
    if (std::find(std::begin(kKnownKeys), std::end(kKnownKeys), key.str()) == std::end(kKnownKeys)) {
      return make_error(fmt::format("{}: unknown key '{}'", where(origin, node.source()), key.str()));
    }
  }
  Profile p;
  auto as_string = [](std::string_view s) -> Result<std::string> { return std::string(s); };
  auto type = [](std::string_view s) { return parse_disk_type(s); };
  auto micros = [](std::string_view s) { return parse_time_ns(s, TimeUnit::kMicroseconds); };
  auto seconds = [](std::string_view s) { return parse_time_ns(s, TimeUnit::kSeconds); };
  auto size = [](std::string_view s) { return parse_size(s); };
  auto rate = [](std::string_view s) { return parse_rate(s); };
  Status checks[] = {
      read_field(t, "name", origin, true, as_string, p.name),
      read_field(t, "type", origin, true, type, p.type),
      read_field(t, "access_time", origin, true, micros, p.access_time_ns),
      read_field(t, "read_throughput", origin, true, rate, p.read_bytes_per_sec),
      read_field(t, "write_throughput", origin, true, rate, p.write_bytes_per_sec),
      read_field(t, "queue_depth", origin, false, parse_count, p.queue_depth),
      read_field(t, "max_read_bytes", origin, false, size, p.max_read_bytes),
      read_field(t, "max_write_bytes", origin, false, size, p.max_write_bytes),
      read_field(t, "max_read_segments", origin, false, parse_count, p.max_read_segments),
      read_field(t, "max_write_segments", origin, false, parse_count, p.max_write_segments),
      read_field(t, "spinup_idle", origin, false, seconds, p.spinup_idle_ns),
      read_field(t, "spinup_time", origin, false, seconds, p.spinup_ns),
  };
  for (const Status& s : checks) {
    if (!s.ok()) return make_error(s.error());
  }
  if (Status v = validate(p); !v.ok()) return make_error(fmt::format("{}: {}", origin, v.error()));
  return p;
}

ProfileCatalog::ProfileCatalog() {
  auto builtins = builtin_profiles();
  profiles_.assign(builtins.begin(), builtins.end());
}

std::vector<std::string> ProfileCatalog::default_dirs() {
  if (const char* dir = std::getenv("DISKCOND_PROFILE_DIR"); dir && *dir) return {dir};
  std::vector<std::string> dirs = {"/etc/diskcond/profiles"};
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    dirs.push_back(std::string(xdg) + "/diskcond/profiles");
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dirs.push_back(std::string(home) + "/.config/diskcond/profiles");
  }
  return dirs;
}

ProfileCatalog ProfileCatalog::load(const std::vector<std::string>& dirs) {
  ProfileCatalog catalog;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".toml") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::ifstream in(file);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) {
        catalog.problems_.push_back(fmt::format("{}: cannot read", file.string()));
        continue;
      }
      auto parsed = parse_profile_toml(text.str(), file.string());
      if (!parsed.ok()) {
        catalog.problems_.push_back(parsed.error());
        continue;
      }
      if (catalog.find(parsed->name).ok()) {
        catalog.problems_.push_back(
            fmt::format("{}: profile name '{}' is already taken; skipped", file.string(), parsed->name));
        continue;
      }
      catalog.profiles_.push_back(std::move(parsed).value());
    }
  }
  return catalog;
}

Result<Profile> ProfileCatalog::find(std::string_view name_or_index) const {
  std::string key(name_or_index);
  if (!key.empty() && std::all_of(key.begin(), key.end(), ::isdigit)) {
    size_t index = 0;
    auto [p, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
    if (ec == std::errc() && index < profiles_.size()) return profiles_[index];
    return make_error(fmt::format("no profile with index {} (0 to {}; see 'dmc list')", key,
                                  profiles_.size() - 1));
  }
  for (const Profile& p : profiles_) {
    if (strcasecmp(p.name.c_str(), key.c_str()) == 0) return p;
  }
  return make_error(fmt::format("unknown profile '{}' (see 'dmc list')", key));
}

}  // namespace diskcond
