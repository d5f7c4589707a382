#include "rawio/safety.h"

#include <blkid/blkid.h>
#include <fmt/format.h>
#include <libmount/libmount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>

namespace diskcond::rawio {
namespace {

namespace fs = std::filesystem;

std::string find_mount_point(dev_t rdev) {
  libmnt_table* table = mnt_new_table();
  if (!table) return "";
  std::string where;
  if (mnt_table_parse_mtab(table, nullptr) == 0) {
    if (libmnt_fs* fs = mnt_table_find_devno(table, rdev, MNT_ITER_FORWARD)) {
      const char* target = mnt_fs_get_target(fs);
      where = target ? target : "?";
    }
  }
  mnt_unref_table(table);
  return where;
}

// Space-separated names of the entries of `dir` that pass `keep`.
template <class Keep>
std::string list_entries(const fs::path& dir, Keep keep) {
  std::string out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!keep(entry)) continue;
    if (!out.empty()) out += ' ';
    out += entry.path().filename().string();
  }
  return out;
}

std::string probe_signature(const std::string& path) {
  blkid_probe probe = blkid_new_probe_from_filename(path.c_str());
  if (!probe) return "";
  blkid_probe_enable_superblocks(probe, 1);
  blkid_probe_set_superblocks_flags(probe, BLKID_SUBLKS_TYPE);
  blkid_probe_enable_partitions(probe, 1);
  blkid_probe_set_partitions_flags(probe, BLKID_PARTS_MAGIC);
  std::string found;
  int rc = blkid_do_safeprobe(probe);
  const char* value = nullptr;
  if (rc == 0 && blkid_probe_lookup_value(probe, "TYPE", &value, nullptr) == 0) {
    found = fmt::format("a file system signature ({})", value);
  } else if (rc == 0 && blkid_probe_lookup_value(probe, "PTTYPE", &value, nullptr) == 0) {
    found = fmt::format("a partition table ({})", value);
  } else if (rc == 0) {
    found = "a signature libblkid recognises";
  } else if (rc == -2) {
    found = "several conflicting signatures";
  }
  blkid_free_probe(probe);
  return found;
}

}  // namespace

DeviceUse inspect_device_use(const Target& device) {
  DeviceUse use;
  use.mounted_at = find_mount_point(device.rdev);
  fs::path sys = fmt::format("/sys/dev/block/{}:{}", major(device.rdev), minor(device.rdev));
  use.holders = list_entries(sys / "holders", [](const fs::directory_entry&) { return true; });
  use.partitions = list_entries(sys, [](const fs::directory_entry& e) {
    std::error_code ec;
    return fs::exists(e.path() / "partition", ec);
  });
  use.signature = probe_signature(device.io_path);
  return use;
}

bool names_target(const std::string& forced, const Target& target) {
  struct stat a {
  }, b{};
  if (::stat(forced.c_str(), &a) != 0 || ::stat(target.io_path.c_str(), &b) != 0) return false;
  if (S_ISBLK(a.st_mode) && S_ISBLK(b.st_mode)) return a.st_rdev == b.st_rdev;
  return !S_ISBLK(a.st_mode) && !S_ISBLK(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

WriteVerdict check_write_allowed(const Target& target, const std::vector<std::string>& forced) {
  if (target.create) return {};  // rawio makes this file itself
  for (const auto& f : forced) {
    if (names_target(f, target)) return {true, true, ""};
  }
  const std::string hint =
      fmt::format("; to destroy its contents anyway, pass --force-write={}", target.name);
  if (target.kind == TargetKind::kRegularFile) {
    return {false, false,
            fmt::format("refusing to write to {}: it is an existing file rawio did "
                        "not create{}",
                        target.name, hint)};
  }
  DeviceUse use = inspect_device_use(target);
  if (!use.mounted_at.empty()) {
    return {false, false,
            fmt::format("refusing to write to {}: it is mounted on {}{}", target.name,
                        use.mounted_at, hint)};
  }
  if (!use.holders.empty()) {
    return {false, false,
            fmt::format("refusing to write to {}: it is in use by {}{}", target.name, use.holders,
                        hint)};
  }
  if (!use.partitions.empty()) {
    return {false, false,
            fmt::format("refusing to write to {}: it has partitions ({}){}", target.name,
                        use.partitions, hint)};
  }
  if (!use.signature.empty()) {
    return {
        false, false,
        fmt::format("refusing to write to {}: it carries {}{}", target.name, use.signature, hint)};
  }
  return {};
}

}  // namespace diskcond::rawio
