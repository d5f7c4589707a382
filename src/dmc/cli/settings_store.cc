#include "dmc/cli/settings_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dmc/mount/settings_json.h"
#include "posix/files.h"

namespace diskcond::dmc {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr int kSchemaVersion = 1;
constexpr size_t kMaxFileName = 240;  // NAME_MAX is 255; leave room for ".json" and temp suffixes

json record_to_json(const StoredMount& r) {
  json j = json::object();
  j["schema_version"] = kSchemaVersion;
  j["mount"] = r.mount;
  j["boot"] = r.boot;
  j["cache_mode"] = std::string(mount::cache_mode_name(r.settings.cache));
  j["profile"] = mount::profile_to_json(r.settings.profile);
  return j;
}

Result<StoredMount> record_from_json(const json& j) {
  if (!j.is_object()) return make_error("not a JSON object");
  auto version = j.find("schema_version");
  if (version == j.end() || !version->is_number_unsigned() ||
      version->get<uint64_t>() != kSchemaVersion) {
    return make_error(fmt::format("'schema_version' must be {}", kSchemaVersion));
  }
  StoredMount r;
  auto mount = j.find("mount");
  if (mount == j.end() || !mount->is_string() || mount->get<std::string>().empty() ||
      mount->get<std::string>()[0] != '/') {
    return make_error("'mount' must be an absolute path");
  }
  r.mount = mount->get<std::string>();
  auto boot = j.find("boot");
  if (boot == j.end() || !boot->is_boolean()) return make_error("'boot' must be true or false");
  r.boot = boot->get<bool>();
  auto cache = j.find("cache_mode");
  if (cache == j.end() || !cache->is_string()) return make_error("'cache_mode' must be a string");
  auto mode = mount::parse_cache_mode_name(cache->get<std::string>());
  if (!mode.ok()) return make_error(mode.error());
  r.settings.cache = *mode;
  auto profile = j.find("profile");
  if (profile == j.end()) return make_error("missing key 'profile'");
  auto parsed = mount::profile_from_json(*profile);
  if (!parsed.ok()) return make_error(fmt::format("profile: {}", parsed.error()));
  r.settings.profile = std::move(parsed).value();
  return r;
}

Result<StoredMount> read_record(const std::string& file) {
  std::ifstream in(file);
  if (!in) return make_error(fmt::format("{}: cannot read: {}", file, std::strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error(fmt::format("{}: not valid JSON", file));
  auto record = record_from_json(j);
  if (!record.ok()) return make_error(fmt::format("{}: {}", file, record.error()));
  return record;
}

}  // namespace

Result<StoreLock> SettingsStore::lock() const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return make_error(fmt::format("cannot create {}: {}", dir_, ec.message()));
  std::string file = (fs::path(dir_) / ".lock").string();
  posix::UniqueFd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return make_error(fmt::format("cannot open {}: {}", file, std::strerror(errno)));
  int rc;
  do {
    rc = ::flock(fd.get(), LOCK_EX);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return make_error(fmt::format("cannot lock {}: {}", file, std::strerror(errno)));
  return StoreLock(std::move(fd));
}

std::string SettingsStore::default_dir() {
  if (const char* dir = std::getenv("DISKCOND_STATE_DIR"); dir && *dir)
    return std::string(dir) + "/mounts";
  if (::geteuid() != 0) {
    // An ordinary user's own settings (dmc start without root), where XDG puts state.
    if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state == '/')
      return std::string(state) + "/diskcond/mounts";
    if (const char* home = std::getenv("HOME"); home && *home == '/')
      return std::string(home) + "/.local/state/diskcond/mounts";
  }
  return "/var/lib/diskcond/mounts";
}

std::string escape_mount_path(const std::string& mount) {
  return posix::escape_path(mount);
}

std::string SettingsStore::path_for(const std::string& mount) const {
  std::string name = escape_mount_path(mount);
  if (name.size() > kMaxFileName)
    name = fmt::format("{}-{:016x}", name.substr(0, 200), posix::fnv1a_64(mount));
  return (fs::path(dir_) / (name + ".json")).string();
}

Result<std::optional<StoredMount>> SettingsStore::load(const std::string& mount) const {
  std::string file = path_for(mount);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<StoredMount>();
    return make_error(fmt::format("{}: {}", file, std::strerror(errno)));
  }
  auto record = read_record(file);
  if (!record.ok()) return make_error(record.error());
  if (record->mount != mount) {
    return make_error(
        fmt::format("{}: holds the settings of '{}', not '{}'", file, record->mount, mount));
  }
  return std::optional<StoredMount>(std::move(record).value());
}

Status SettingsStore::save(const StoredMount& record) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return make_error(fmt::format("cannot create {}: {}", dir_, ec.message()));
  std::string file = path_for(record.mount);
  if (int r = posix::replace_file(file, record_to_json(record).dump(2) + "\n", 0644); r < 0) {
    return make_error(fmt::format("cannot write {}: {}", file, std::strerror(-r)));
  }
  return ok_status();
}

Status SettingsStore::remove(const std::string& mount) const {
  std::string file = path_for(mount);
  if (::unlink(file.c_str()) != 0 && errno != ENOENT) {
    return make_error(fmt::format("cannot remove {}: {}", file, std::strerror(errno)));
  }
  return ok_status();
}

StoreListing SettingsStore::list() const {
  StoreListing listing;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    listing.problems.push_back(fmt::format("{}: {}", dir_, ec.message()));
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    auto record = read_record(file.string());
    if (record.ok()) {
      listing.mounts.push_back(std::move(record).value());
    } else {
      listing.problems.push_back(record.error());
    }
  }
  return listing;
}

}  // namespace diskcond::dmc
