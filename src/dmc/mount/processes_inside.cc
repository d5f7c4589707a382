#include "dmc/mount/processes_inside.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace diskcond::mount {
namespace {

constexpr std::string_view kDeleted = " (deleted)";

// The target of the symbolic link `link`, or "" when it cannot be read.
std::string read_link(const std::string& link) {
  char buf[4096];
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return "";
  return std::string(buf, static_cast<size_t>(n));
}

// Whether the magic link `link` (/proc/<pid>/cwd, .../fd/3) leads below `dir` and, when
// `except` is set, to a file on another device than it.
bool link_holds(const std::string& link, const std::string& dir,
                const std::optional<dev_t>& except) {
  const std::string target = read_link(link);
  if (target.empty() || !path_is_inside(target, dir)) return false;
  if (!except) return true;
  struct stat st {};
  if (::stat(link.c_str(), &st) != 0) return true;  // a file that is gone is not on the mount
  return st.st_dev != *except;
}

// Whether some file mapped by the process (/proc/<pid>/maps: "start-end perms offset MM:mm inode
// path") lies below `dir` on another device than `except`.
bool maps_hold(const std::string& maps, const std::string& dir,
               const std::optional<dev_t>& except) {
  std::ifstream in(maps);
  std::string line;
  while (std::getline(in, line)) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;  // anonymous, [heap], [stack]
    std::istringstream fields(line.substr(0, slash));
    std::string range, perms, offset, device, inode;
    if (!(fields >> range >> perms >> offset >> device >> inode)) continue;
    if (!path_is_inside(line.substr(slash), dir)) continue;
    if (!except) return true;
    unsigned major = 0, minor = 0;
    if (std::sscanf(device.c_str(), "%x:%x", &major, &minor) != 2) return true;
    if (makedev(major, minor) != *except) return true;
  }
  return false;
}

std::string command_of(const std::string& proc_pid) {
  std::ifstream in(proc_pid + "/comm");
  std::string command;
  std::getline(in, command);
  return command;
}

// The open file descriptors holding `dir`, in increasing order.
std::vector<int> fds_holding(const std::string& proc_pid, const std::string& dir,
                             const std::optional<dev_t>& except) {
  std::vector<int> fds;
  const std::string fd_dir = proc_pid + "/fd";
  DIR* d = ::opendir(fd_dir.c_str());
  if (d == nullptr) return fds;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    if (link_holds(fd_dir + "/" + e->d_name, dir, except)) fds.push_back(std::atoi(e->d_name));
  }
  ::closedir(d);
  std::sort(fds.begin(), fds.end());
  return fds;
}

std::optional<ProcessInside> inspect(pid_t pid, const std::string& dir, const ProcessScan& scan,
                                     const std::string& own_namespace) {
  const std::string proc_pid = scan.proc_dir + "/" + std::to_string(pid);
  const std::string ns = read_link(proc_pid + "/ns/mnt");
  if (ns.empty() || ns != own_namespace) return std::nullopt;
  ProcessInside p;
  p.pid = pid;
  if (link_holds(proc_pid + "/cwd", dir, scan.except_device)) p.uses.push_back("cwd");
  if (link_holds(proc_pid + "/root", dir, scan.except_device)) p.uses.push_back("root");
  for (int fd : fds_holding(proc_pid, dir, scan.except_device))
    p.uses.push_back("fd " + std::to_string(fd));
  if (maps_hold(proc_pid + "/maps", dir, scan.except_device)) p.uses.push_back("map");
  if (p.uses.empty()) return std::nullopt;
  p.command = command_of(proc_pid);
  return p;
}

}  // namespace

bool path_is_inside(const std::string& path, const std::string& dir) {
  std::string_view p = path;
  if (p.size() > kDeleted.size() && p.substr(p.size() - kDeleted.size()) == kDeleted) {
    p.remove_suffix(kDeleted.size());
  }
  if (dir.empty() || p.substr(0, dir.size()) != dir) return false;
  return p.size() == dir.size() || dir == "/" || p[dir.size()] == '/';
}

std::vector<ProcessInside> find_processes_inside(const std::string& dir, const ProcessScan& scan) {
  std::vector<ProcessInside> found;
  const std::string own_namespace = read_link(scan.proc_dir + "/self/ns/mnt");
  DIR* d = ::opendir(scan.proc_dir.c_str());
  if (d == nullptr || own_namespace.empty()) {
    if (d != nullptr) ::closedir(d);
    return found;
  }
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    if (std::find(scan.ignore.begin(), scan.ignore.end(), static_cast<pid_t>(pid)) !=
        scan.ignore.end())
      continue;
    if (auto p = inspect(static_cast<pid_t>(pid), dir, scan, own_namespace))
      found.push_back(std::move(*p));
  }
  ::closedir(d);
  std::sort(found.begin(), found.end(),
            [](const ProcessInside& a, const ProcessInside& b) { return a.pid < b.pid; });
  return found;
}

}  // namespace diskcond::mount
