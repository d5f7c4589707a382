// Everything a dmc command touches outside itself, so tests can run every command against a fake
// mount machinery, a temporary settings store and string streams.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "dmc/cli/profile_catalog.h"
#include "dmc/cli/settings_store.h"
#include "dmc/mount/mount_control.h"
#include "dmc/mount/processes_inside.h"

namespace diskcond::disk {
class DiskControl;  // dmc/disk/disk_control.h
}  // namespace diskcond::disk

namespace diskcond::dmc {

struct Context {
  // The mount machinery; called only by commands that need it (list/show/help never do).
  std::function<mount::MountControl&()> mounts;
  // Image files, loop devices, mkfs and mount(2); called only by `dmc disk`.
  std::function<disk::DiskControl&()> disks;
  SettingsStore store;
  // Where user-defined profiles live (ProfileCatalog::default_dirs() in dmc itself).
  std::vector<std::string> profile_dirs;
  // True when dmc may change settings (geteuid() == 0 in dmc itself).
  std::function<bool()> is_root;
  // The caller's uid (geteuid() in dmc itself): without root, the commands that change a mount
  // act only on the caller's own (command_support.h check_may_change).
  std::function<uid_t()> uid = [] { return uid_t{0}; };
  std::ostream& out;
  std::ostream& err;
  // True when `err` is a terminal (isatty(2) in dmc itself): progress lines are shown only there.
  std::function<bool()> err_is_terminal = [] { return false; };
  // The processes holding `dir` (mount/processes_inside.h), dmc itself and `daemon_pid` left out.
  // With `mounted`, only those that do not see the conditioned mount on `dir` (their files are
  // the directory underneath). find_processes_inside() in dmc itself; none unless a test says.
  std::function<std::vector<mount::ProcessInside>(const std::string& dir, bool mounted,
                                                  pid_t daemon_pid)>
      processes_inside =
          [](const std::string&, bool, pid_t) { return std::vector<mount::ProcessInside>{}; };
  // "" when dmc-boot.service will re-apply '-boot' mounts at the next boot, else why not
  // (boot_service_problem() in dmc itself; tests say).
  std::function<std::string()> boot_problem = [] { return std::string(); };

  ProfileCatalog catalog() const { return ProfileCatalog::load(profile_dirs); }
};

}  // namespace diskcond::dmc
