#include "dmc/mount/mount_table.h"

#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace diskcond::mount {

std::string unescape_mountinfo(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string oct = field.substr(i + 1, 3);
      if (oct.size() == 3 && oct.find_first_not_of("01234567") == std::string::npos) {
        out += static_cast<char>(std::stoi(oct, nullptr, 8));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

namespace {

struct MountEntry {
  std::string mount_point;
  std::string type;
};

std::vector<MountEntry> read_mountinfo() {
  std::vector<MountEntry> entries;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    std::string word;
    while (fields >> word) f.push_back(word);
    size_t dash = 0;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 5 || dash + 1 >= f.size()) continue;
    entries.push_back({unescape_mountinfo(f[4]), f[dash + 1]});
  }
  return entries;
}

}  // namespace

bool is_conditioned_mount(const std::string& canonical_path) {
  bool topmost_is_ours = false;
  // Later lines are mounted on top of earlier ones: the last match wins.
  for (const MountEntry& e : read_mountinfo()) {
    if (e.mount_point == canonical_path) topmost_is_ours = e.type == kFuseType;
  }
  return topmost_is_ours;
}

std::vector<std::string> conditioned_mount_points() {
  std::vector<std::string> points;
  for (const MountEntry& e : read_mountinfo()) {
    if (e.type == kFuseType) points.push_back(e.mount_point);
  }
  return points;
}

Result<std::string> canonical_directory_path(const std::string& path) {
  if (path.empty()) return make_error("empty path");
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) != nullptr) return std::string(buf);
  const int err = errno;
  // A dead FUSE daemon's mount answers ENOTCONN (ECONNABORTED while the connection is being
  // torn down): resolve the parent, keep the last component.
  if (err != ENOTCONN && err != ECONNABORTED) return make_error(path + ": " + std::strerror(err));
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const size_t slash = trimmed.rfind('/');
  const std::string parent = slash == std::string::npos ? "."
                             : slash == 0               ? "/"
                                                        : trimmed.substr(0, slash);
  const std::string name = slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
  if (name == "." || name == "..") return make_error(path + ": " + std::strerror(err));
  if (realpath(parent.c_str(), buf) == nullptr)
    return make_error(path + ": " + std::strerror(errno));
  std::string out(buf);
  return (out == "/" ? out : out + "/") + name;
}

}  // namespace diskcond::mount
