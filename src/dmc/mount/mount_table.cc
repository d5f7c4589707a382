#include "dmc/mount/mount_table.h"

#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
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

// user_id=N among a FUSE mount's super options when allow_other is not; else 0 (also when
// absent or malformed).
uid_t private_owner(const std::string& super_options) {
  std::istringstream options(super_options);
  uid_t uid = 0;
  for (std::string option; std::getline(options, option, ',');) {
    if (option == "allow_other") return 0;
    if (option.rfind("user_id=", 0) != 0) continue;
    const char* begin = option.data() + 8;
    const char* end = option.data() + option.size();
    auto [ptr, ec] = std::from_chars(begin, end, uid);
    if (ec != std::errc() || ptr != end) return 0;
  }
  return uid;
}

}  // namespace

std::vector<MountEntry> parse_mountinfo(const std::string& text) {
  std::vector<MountEntry> entries;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    std::string word;
    while (fields >> word) f.push_back(word);
    size_t dash = 0;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 5 || dash + 1 >= f.size()) continue;
    MountEntry e;
    if (std::from_chars(f[0].data(), f[0].data() + f[0].size(), e.id).ec != std::errc() ||
        std::from_chars(f[1].data(), f[1].data() + f[1].size(), e.parent).ec != std::errc()) {
      continue;
    }
    e.mount_point = unescape_mountinfo(f[4]);
    e.type = f[dash + 1];
    if (e.type.rfind("fuse", 0) == 0 && dash + 3 < f.size()) e.owner = private_owner(f[dash + 3]);
    entries.push_back(std::move(e));
  }
  return entries;
}

namespace {

std::vector<MountEntry> read_mountinfo() {
  std::ifstream in("/proc/self/mountinfo");
  std::stringstream text;
  text << in.rdbuf();
  return parse_mountinfo(text.str());
}

// `dir` is `path` or one of its ancestors.
bool holds(const std::string& dir, const std::string& path) {
  if (dir == "/") return !path.empty() && path[0] == '/';
  return path.compare(0, dir.size(), dir) == 0 &&
         (path.size() == dir.size() || path[dir.size()] == '/');
}

}  // namespace

namespace {

// The mount tree of a mountinfo, for finding what path lookup reaches.
class MountTree {
 public:
  explicit MountTree(const std::vector<MountEntry>& entries) : entries_(entries) {
    for (const MountEntry& e : entries) by_id_[e.id] = &e;
  }

  // Nothing is mounted on top of `e` (a later mount on the same point has `e` as its parent).
  bool topmost(const MountEntry& e) const {
    for (const MountEntry& c : entries_) {
      if (c.parent == e.id && c.id != e.id && c.mount_point == e.mount_point) return false;
    }
    return true;
  }

  // Path lookup can get to `e` (and then to what is on top of it).
  bool reachable(const MountEntry& e, int depth = 0) const {
    auto parent = by_id_.find(e.parent);
    if (parent == by_id_.end() || parent->second == &e) return true;  // the root
    if (depth > 1000) return false;                                   // a cycle: not a real table
    const MountEntry& p = *parent->second;
    if (!reachable(p, depth + 1)) return false;
    if (e.mount_point == p.mount_point) return true;  // on top of its parent
    if (!topmost(p)) return false;                    // in a mount that another one covers
    for (const MountEntry& s : entries_) {            // under a sibling mounted on an ancestor
      if (s.parent == p.id && &s != &e && s.mount_point != e.mount_point &&
          holds(s.mount_point, e.mount_point)) {
        return false;
      }
    }
    return true;
  }

 private:
  const std::vector<MountEntry>& entries_;
  std::map<int, const MountEntry*> by_id_;
};

}  // namespace

const MountEntry* holding_mount(const std::vector<MountEntry>& entries,
                                const std::string& canonical_path) {
  const MountTree tree(entries);
  const MountEntry* holder = nullptr;
  for (const MountEntry& e : entries) {
    if (!holds(e.mount_point, canonical_path)) continue;
    if (holder != nullptr && e.mount_point.size() < holder->mount_point.size()) continue;
    if (tree.topmost(e) && tree.reachable(e)) holder = &e;
  }
  return holder;
}

std::string conditioned_mount_holding(const std::string& canonical_path) {
  const std::vector<MountEntry> entries = read_mountinfo();
  const MountEntry* holder = holding_mount(entries, canonical_path);
  return holder != nullptr && holder->type == kFuseType ? holder->mount_point : "";
}

uid_t conditioned_mount_owner(const std::string& mount_point) {
  uid_t owner = 0;
  // Later lines are mounted on top of earlier ones: the last match wins.
  for (const MountEntry& e : read_mountinfo()) {
    if (e.mount_point == mount_point) owner = e.type == kFuseType ? e.owner : 0;
  }
  return owner;
}

std::string filesystem_type_holding(const std::string& canonical_path) {
  const std::vector<MountEntry> entries = read_mountinfo();
  const MountEntry* holder = holding_mount(entries, canonical_path);
  return holder != nullptr ? holder->type : "";
}

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

namespace {

bool is_dead_mount_error(int err) {
  return err == ENOTCONN || err == ECONNABORTED;
}
bool is_dead_or_closed_mount_error(int err) {
  return is_dead_mount_error(err) || err == EACCES;
}

// `path` through its nearest ancestor that realpath resolves, the rest kept as written (lexically
// normalized); `climb_past(errno)` says which errors of an ancestor to go on from. `err` is the
// error `path` itself gave, for the message when nothing resolves.
Result<std::string> resolve_through_ancestor(const std::string& path, int err,
                                             bool (*climb_past)(int)) {
  char buf[PATH_MAX];
  std::string head = std::filesystem::path(path).lexically_normal().string();
  std::vector<std::string> tail;  // components below `head`, innermost first
  for (;;) {
    while (head.size() > 1 && head.back() == '/') head.pop_back();
    const size_t slash = head.rfind('/');
    const std::string name = slash == std::string::npos ? head : head.substr(slash + 1);
    if (name == "." || name == ".." || name.empty())
      return make_error(path + ": " + std::strerror(err));
    tail.push_back(name);
    head = slash == std::string::npos ? "." : slash == 0 ? "/" : head.substr(0, slash);
    if (realpath(head.c_str(), buf) != nullptr) break;
    if (!climb_past(errno)) return make_error(path + ": " + std::strerror(errno));
    if (head == "/" || head == ".") return make_error(path + ": " + std::strerror(err));
  }
  std::string out(buf);
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) out += (out == "/" ? "" : "/") + *it;
  return out;
}

}  // namespace

Result<std::string> canonical_directory_path(const std::string& path) {
  if (path.empty()) return make_error("empty path");
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) != nullptr) return std::string(buf);
  const int err = errno;
  // A dead FUSE daemon's mount answers ENOTCONN (ECONNABORTED while the connection is being
  // torn down), for itself and everything below it: resolve the nearest ancestor that answers.
  if (is_dead_mount_error(err)) return resolve_through_ancestor(path, err, is_dead_mount_error);
  // An ordinary user's own mount answers EACCES to everyone else, root included (it has no
  // allow_other): the same, when the path turns out to be on a conditioned mount.
  if (err == EACCES) {
    auto through = resolve_through_ancestor(path, err, is_dead_or_closed_mount_error);
    if (through.ok() && !conditioned_mount_holding(*through).empty()) return through;
  }
  return make_error(path + ": " + std::strerror(err));
}

}  // namespace diskcond::mount
