#include "core/profile_catalog.h"

#include <fmt/format.h>
#include <strings.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/flat_toml.h"
#include "core/units.h"

namespace diskcond {
namespace {

namespace fs = std::filesystem;

const FlatTomlEntry* find_entry(const std::vector<FlatTomlEntry>& entries, std::string_view key) {
  for (const FlatTomlEntry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

// Parses the value of `key` (a string or a number, as text) with `parse` into `out`.
template <class T, class Parse>
Status read_field(const std::vector<FlatTomlEntry>& entries, std::string_view key, const std::string& origin,
                  bool required, Parse parse, T& out) {
  const FlatTomlEntry* entry = find_entry(entries, key);
  if (entry == nullptr) {
    if (required) return make_error(fmt::format("{}: missing key '{}'", origin, key));
    return ok_status();
  }
  auto parsed = parse(entry->value);
  if (!parsed.ok()) return make_error(fmt::format("{}:{}: {}: {}", origin, entry->line, key, parsed.error()));
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

}  // namespace

Result<Profile> parse_profile_toml(std::string_view text, const std::string& origin) {
  auto parsed = parse_flat_toml(text, origin);
  if (!parsed.ok()) return make_error(parsed.error());
  const std::vector<FlatTomlEntry>& t = *parsed;
  for (const FlatTomlEntry& e : t) {
    if (std::find(std::begin(kKnownKeys), std::end(kKnownKeys), e.key) == std::end(kKnownKeys)) {
      return make_error(fmt::format("{}:{}: unknown key '{}'", origin, e.line, e.key));
    }
  }
  auto as_string = [](std::string_view s) -> Result<std::string> { return std::string(s); };
  auto type = [](std::string_view s) { return parse_disk_type(s); };
  // Left-out keys take the defaults `dmc configure` uses for the same type. A bad or missing type
  // is reported below, in key order.
  DiskType disk_type = DiskType::kSSD;
  (void)read_field(t, "type", origin, true, type, disk_type);
  Profile p = profile_defaults(disk_type);
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
