#include "dmc/cli/profile_catalog.h"

#include <fmt/format.h>
#include <strings.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/profile_toml.h"

namespace diskcond::dmc {
namespace {

namespace fs = std::filesystem;

}  // namespace

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
        catalog.problems_.push_back(fmt::format("{}: profile name '{}' is already taken; skipped",
                                                file.string(), parsed->name));
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

}  // namespace diskcond::dmc
