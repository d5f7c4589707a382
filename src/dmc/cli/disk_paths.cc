#include "dmc/cli/disk_paths.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/units.h"
#include "dmc/cli/mount_path.h"

namespace diskcond::dmc {
namespace {

namespace fs = std::filesystem;

}  // namespace

Result<ImagePath> resolve_image_path(std::string_view arg_view) {
  const std::string arg(arg_view);
  if (arg.empty()) return make_error("the image path is empty");
  if (arg.back() == '/')
    return make_error(fmt::format("'{}' names a directory, not an image file", arg));
  struct stat st {};
  std::string target = arg;
  if (::lstat(arg.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    if (::stat(arg.c_str(), &st) != 0)
      return make_error(fmt::format("'{}' is a dangling symbolic link", arg));
    auto resolved = real_path(arg);
    if (!resolved.ok()) return make_error(resolved.error());
    target = *resolved;
  }
  fs::path lexical(target);
  const std::string name = lexical.filename().string();
  if (name.empty() || name == "." || name == "..") {
    return make_error(fmt::format("'{}' names a directory, not an image file", arg));
  }
  const std::string parent =
      lexical.has_parent_path() ? lexical.parent_path().string() : std::string(".");
  struct stat pst {};
  if (::stat(parent.c_str(), &pst) != 0) {
    int err = errno;
    if (err == ENOENT)
      return make_error(fmt::format("no such directory '{}' for the image '{}'", parent, arg));
    if (err == ENOTDIR)
      return make_error(
          fmt::format("'{}' is not a directory (in the image path '{}')", parent, arg));
    return make_error(fmt::format("cannot access '{}': {}", parent, std::strerror(err)));
  }
  if (!S_ISDIR(pst.st_mode))
    return make_error(fmt::format("'{}' is not a directory (in the image path '{}')", parent, arg));
  auto dir = real_path(parent);
  if (!dir.ok()) return make_error(dir.error());
  ImagePath image;
  image.dir = *dir;
  image.path = (fs::path(image.dir) / name).string();
  if (image.path.size() >= PATH_MAX)
    return make_error(fmt::format("the image path '{}' is too long", arg));
  if (::stat(image.path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return make_error(fmt::format("'{}' is a directory, not an image file", arg));
    if (!S_ISREG(st.st_mode)) return make_error(fmt::format("'{}' is not a regular file", arg));
    image.exists = true;
    image.size_bytes = static_cast<uint64_t>(st.st_size);
  } else if (errno == ENAMETOOLONG) {
    return make_error(fmt::format("the image path '{}' is too long", arg));
  } else if (errno != ENOENT) {
    return make_error(fmt::format("cannot access '{}': {}", arg, std::strerror(errno)));
  }
  return image;
}

Result<uint64_t> parse_disk_size(std::string_view text) {
  auto bytes = parse_size(text);
  if (!bytes.ok()) return bytes;
  if (*bytes < kMinDiskBytes)
    return make_error(fmt::format("size '{}' is too small: a disk is at least 1 MiB", text));
  if (*bytes > kMaxDiskBytes)
    return make_error(fmt::format("size '{}' is too large: a disk is at most 16 TiB", text));
  if (*bytes % kDiskBlockBytes != 0) {
    return make_error(fmt::format("size '{}' is not a whole number of 4 KiB blocks", text));
  }
  return bytes;
}

Result<std::string> resolve_mount_target(std::string_view arg_view) {
  const std::string arg(arg_view);
  if (arg.empty()) return make_error("the -mount directory is empty");
  struct stat st {};
  if (::stat(arg.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) return make_error(fmt::format("no such directory '{}' for -mount", arg));
    if (err == ENOTDIR) return make_error(fmt::format("'{}' is not a directory (for -mount)", arg));
    return make_error(fmt::format("cannot access '{}': {}", arg, std::strerror(err)));
  }
  if (!S_ISDIR(st.st_mode))
    return make_error(fmt::format("'{}' is not a directory (for -mount)", arg));
  return real_path(arg);
}

bool is_mount_point(const std::string& dir) {
  if (dir == "/") return true;
  struct stat st {
  }, parent{};
  if (::stat(dir.c_str(), &st) != 0 || ::stat((fs::path(dir).parent_path()).c_str(), &parent) != 0)
    return false;
  return st.st_dev != parent.st_dev || st.st_ino == parent.st_ino;
}

Result<std::optional<mount::MountStatus>> find_holding_mount(mount::MountControl& mounts,
                                                             const std::string& dir,
                                                             dev_t dir_dev) {
  fs::path p(dir);
  for (;;) {
    auto status = mounts.status(p.string());
    if (!status.ok())
      return make_error(fmt::format("cannot query {}: {}", p.string(), status.error()));
    if (status->mounted) {
      if (status->mount_point.empty()) status->mount_point = p.string();
      if (!status->daemon_alive)
        return std::optional<mount::MountStatus>(std::move(status).value());
      struct stat st {};
      if (::stat(status->mount_point.c_str(), &st) == 0 && st.st_dev == dir_dev) {
        return std::optional<mount::MountStatus>(std::move(status).value());
      }
      return std::optional<mount::MountStatus>();  // `dir` is on another file system mounted inside
                                                   // it
    }
    if (!p.has_parent_path() || p.parent_path() == p) break;
    p = p.parent_path();
  }
  return std::optional<mount::MountStatus>();
}

}  // namespace diskcond::dmc
