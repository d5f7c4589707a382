// The settings store: what dmc remembers about each mount between runs, one JSON file per mount.
//
// Directory: $DISKCOND_STATE_DIR/mounts if DISKCOND_STATE_DIR is set (tests use it), else root's
// /var/lib/diskcond/mounts, or for an ordinary user their own ${XDG_STATE_HOME:-~/.local/state}/
// diskcond/mounts (the settings of the directories they condition without root). File name: the
// mount path escaped like `systemd-escape --path`
// ("/srv/data" -> "srv-data.json"). Content (docs/dmc.md, "Settings store"):
//   {"schema_version": 1, "mount": "/srv/data", "boot": false, "cache_mode": "page_cache",
//    "profile": {...settings_json.h...}}
// Writes are atomic (temporary file, fsync, rename), so a reader sees the old or the new record.
// Files are created 0644 in 0755 directories: `dmc status` reads them without root.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "dmc/mount/mount_control.h"
#include "posix/unique_fd.h"

namespace diskcond::dmc {

struct StoredMount {
  std::string mount;              // canonical absolute path (mount_path.h)
  mount::MountSettings settings;  // what `dmc start <mount>` without a profile applies
  bool boot = false;  // `dmc boot` starts this mount (set by `start -boot`, cleared by `stop`)

  bool operator==(const StoredMount& o) const {
    return mount == o.mount && settings.profile == o.settings.profile &&
           settings.cache == o.settings.cache && boot == o.boot;
  }
};

// An exclusive lock on the store, held by a dmc process from reading a mount's state until it has
// saved the new settings, so two dmc processes cannot interleave changes. Released on destruction.
class StoreLock {
 public:
  explicit StoreLock(posix::UniqueFd fd = posix::UniqueFd()) : fd_(std::move(fd)) {}

 private:
  posix::UniqueFd fd_;  // the locked <dir>/.lock; closing it releases the lock
};

struct StoreListing {
  std::vector<StoredMount> mounts;    // in file name order
  std::vector<std::string> problems;  // "<file>: <what>" for each unreadable or malformed record
};

class SettingsStore {
 public:
  explicit SettingsStore(std::string dir) : dir_(std::move(dir)) {}
  // The directory described above.
  static std::string default_dir();

  const std::string& dir() const { return dir_; }

  // nullopt when nothing is stored for `mount`. A malformed record is an error naming the file.
  Result<std::optional<StoredMount>> load(const std::string& mount) const;
  // Creates the directory if needed; replaces any earlier record for record.mount.
  Status save(const StoredMount& record) const;
  // Forgets `mount`: removes its record (none stored is fine).
  Status remove(const std::string& mount) const;
  // Creates the directory if needed and waits for <dir>/.lock (flock, exclusive).
  Result<StoreLock> lock() const;
  // Every record in the store (a missing directory is an empty store).
  StoreListing list() const;

  // The file that holds `mount`'s record.
  std::string path_for(const std::string& mount) const;

 private:
  std::string dir_;
};

// "/srv/my data" -> "srv-my\x20data", as `systemd-escape --path`; "/" -> "-" (posix::escape_path).
std::string escape_mount_path(const std::string& mount);

}  // namespace diskcond::dmc
