#include "dmc/mount/conditionable.h"

#include <linux/magic.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>

#include "dmc/mount/mount_table.h"

namespace diskcond::mount {
namespace {

struct PseudoFilesystem {
  int64_t magic;
  const char* name;
};

// Magic numbers from linux/magic.h; mqueue, configfs and fusectl are not in it.
constexpr PseudoFilesystem kPseudoFilesystems[] = {
    {PROC_SUPER_MAGIC, "proc"},
    {SYSFS_MAGIC, "sysfs"},
    {DEVPTS_SUPER_MAGIC, "devpts"},
    {CGROUP_SUPER_MAGIC, "cgroup"},
    {CGROUP2_SUPER_MAGIC, "cgroup2"},
    {DEBUGFS_MAGIC, "debugfs"},
    {TRACEFS_MAGIC, "tracefs"},
    {SECURITYFS_MAGIC, "securityfs"},
    {BPF_FS_MAGIC, "bpf"},
    {0x19800202, "mqueue"},
    {0x62656570, "configfs"},
    {PSTOREFS_MAGIC, "pstore"},
    {EFIVARFS_MAGIC, "efivarfs"},
    {0x65735543, "fusectl"},
    {HUGETLBFS_MAGIC, "hugetlbfs"},
    {BINFMTFS_MAGIC, "binfmt_misc"},
    {SELINUX_MAGIC, "selinuxfs"},
    {SMACK_MAGIC, "smackfs"},
    {NSFS_MAGIC, "nsfs"},
    {AUTOFS_SUPER_MAGIC, "autofs"},
    {RDTGROUP_SUPER_MAGIC, "resctrl"},
};

// `dir` is `path` or one of its ancestors.
bool holds(const std::string& dir, const std::string& path) {
  if (path == "/") return dir == "/";
  if (dir == path) return true;
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         (dir == "/" || path[dir.size()] == '/');
}

}  // namespace

std::string_view pseudo_filesystem_name(int64_t f_type) {
  for (const PseudoFilesystem& fs : kPseudoFilesystems) {
    if (fs.magic == f_type) return fs.name;
  }
  return "";
}

Status check_conditionable(const std::string& canonical_path,
                           const std::vector<std::string>& own_dirs) {
  const std::string& path = canonical_path;
  if (path == "/") {
    return make_error(
        "refusing to condition / (the whole system, dmc's own files included); name a directory "
        "below it");
  }
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return make_error(path + ": " + std::strerror(errno));
  std::string_view pseudo = pseudo_filesystem_name(static_cast<int64_t>(fs.f_type));
  if (pseudo.empty() && static_cast<int64_t>(fs.f_type) == TMPFS_MAGIC &&
      filesystem_type_holding(path) == "devtmpfs") {
    pseudo = "devtmpfs";
  }
  if (!pseudo.empty()) {
    return make_error("refusing to condition " + path + ": it is on " + std::string(pseudo) +
                      ", a pseudo file system with no disk behind it");
  }
  for (const std::string& own : own_dirs) {
    if (!own.empty() && holds(path, own)) {
      return make_error("refusing to condition " + path + ": it holds dmc's own files (" + own +
                        ")");
    }
  }
  return ok_status();
}

}  // namespace diskcond::mount
