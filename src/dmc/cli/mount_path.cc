#include "dmc/cli/mount_path.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "dmc/mount/mount_table.h"

namespace diskcond::dmc {
namespace {

namespace fs = std::filesystem;

// `arg` made absolute and lexically normal, without a trailing slash.
fs::path lexical_path(const std::string& arg) {
  fs::path lexical = fs::absolute(fs::path(arg)).lexically_normal();
  if (lexical.filename().empty() && lexical.has_parent_path() && lexical != lexical.root_path()) {
    lexical = lexical.parent_path();
  }
  return lexical;
}

// The nearest ancestor of `arg` that `usable` accepts, resolved, with the rest appended: for
// paths that cannot be resolved themselves (below a dead FUSE mount point, or deleted).
Result<std::string> resolve_through_ancestor(const std::string& arg, bool (*usable)(int err)) {
  const fs::path lexical = lexical_path(arg);
  fs::path head = lexical;
  while (head.has_parent_path() && head != head.root_path()) {
    head = head.parent_path();
    struct stat st {};
    if (::stat(head.c_str(), &st) == 0) {
      auto real = real_path(head.string());
      if (!real.ok()) return real;
      return (fs::path(*real) / lexical.lexically_relative(head)).lexically_normal().string();
    }
    if (!usable(errno)) break;
  }
  return make_error(fmt::format("cannot resolve '{}'", arg));
}

bool is_stale_error(int err) {
  return err == ENOTCONN || err == ECONNABORTED;
}
bool is_closed_error(int err) {
  return err == EACCES || is_stale_error(err);
}
bool is_missing_error(int err) {
  return err == ENOENT || is_stale_error(err);
}

}  // namespace

Result<std::string> resolve_mount_dir(std::string_view arg_view) {
  std::string arg(arg_view);
  if (arg.empty()) return make_error("the mount path is empty");
  struct stat st {};
  if (::stat(arg.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return make_error(fmt::format("'{}' is not a directory", arg));
    return real_path(arg);
  }
  int err = errno;
  if (is_stale_error(err)) return resolve_through_ancestor(arg, is_stale_error);
  if (err == EACCES) {
    // Another user's own conditioned mount (no allow_other: root gets EACCES too) is still a
    // conditioned directory to ask about, or to be refused by name.
    auto through = resolve_through_ancestor(arg, is_closed_error);
    if (through.ok() && !mount::conditioned_mount_holding(*through).empty()) return through;
  }
  if (err == ENOENT) return make_error(fmt::format("no such directory '{}'", arg));
  if (err == ENOTDIR) return make_error(fmt::format("'{}' is not a directory", arg));
  return make_error(fmt::format("cannot access '{}': {}", arg, std::strerror(err)));
}

bool path_is_missing(std::string_view arg) {
  struct stat st {};
  return !arg.empty() && ::stat(std::string(arg).c_str(), &st) != 0 && errno == ENOENT;
}

Result<std::string> resolve_missing_dir(std::string_view arg) {
  if (arg.empty()) return make_error("the mount path is empty");
  return resolve_through_ancestor(std::string(arg), is_missing_error);
}

Result<std::string> real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) {
    return make_error(fmt::format("cannot resolve '{}': {}", path, std::strerror(errno)));
  }
  return std::string(buf);
}

}  // namespace diskcond::dmc
