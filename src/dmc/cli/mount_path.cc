#include "dmc/cli/mount_path.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace diskcond::dmc {
namespace {

namespace fs = std::filesystem;

Result<std::string> real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) {
    return make_error(fmt::format("cannot resolve '{}': {}", path, std::strerror(errno)));
  }
  return std::string(buf);
}

// A dead FUSE mount point cannot be stat'ed itself: resolve its parent and append the name.
Result<std::string> stale_mount_path(const std::string& arg) {
  fs::path lexical = fs::absolute(fs::path(arg)).lexically_normal();
  if (lexical.filename().empty()) lexical = lexical.parent_path();
  auto parent = real_path(lexical.parent_path().string());
  if (!parent.ok()) return parent;
  return (fs::path(*parent) / lexical.filename()).string();
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
  if (err == ENOTCONN || err == ECONNABORTED) return stale_mount_path(arg);
  if (err == ENOENT) return make_error(fmt::format("no such directory '{}'", arg));
  if (err == ENOTDIR) return make_error(fmt::format("'{}' is not a directory", arg));
  return make_error(fmt::format("cannot access '{}': {}", arg, std::strerror(err)));
}

}  // namespace diskcond::dmc
