// What `dmc disk` needs to know about paths: the image a command names, the size it asks for, and
// the conditioned directory whose file system holds a path.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "dmc/cli/context.h"  // MountControl

namespace diskcond::dmc {

// The largest and smallest disk `dmc disk create` makes, and the block size (of the loop device;
// a disk's size is a whole number of blocks).
inline constexpr uint64_t kDiskBlockBytes = 4096;
inline constexpr uint64_t kMinDiskBytes = uint64_t{1} << 20;
inline constexpr uint64_t kMaxDiskBytes = uint64_t{16} << 40;

struct ImagePath {
  std::string path;  // canonical directory + "/" + name
  std::string dir;   // the canonical directory that holds it
  bool exists = false;
  uint64_t size_bytes = 0;  // when it exists
};

// An image path as typed: its directory must exist; the image itself may exist (a regular file)
// or not. A symbolic link to a file is followed; a dangling one is an error. Errors are one line
// naming the path.
Result<ImagePath> resolve_image_path(std::string_view arg);

// "64m", "1g", "1073741824": a whole number of 4 KiB blocks, 1 MiB to 16 TiB.
Result<uint64_t> parse_disk_size(std::string_view text);

// An existing directory for `-mount`, canonical.
Result<std::string> resolve_mount_target(std::string_view arg);

// True when `dir` is a mount point (its device differs from its parent's, or it is "/").
bool is_mount_point(const std::string& dir);

// The conditioned mount whose file system holds the existing canonical directory `dir`: the
// nearest of `dir` and its ancestors that is conditioned, provided `dir` is on that mount's file
// system (not on another one mounted below it). A stale mount (daemon_alive false) is returned as
// found. nullopt when there is none. `dir_dev` is `dir`'s st_dev.
Result<std::optional<mount::MountStatus>> find_holding_mount(mount::MountControl& mounts,
                                                             const std::string& dir, dev_t dir_dev);

}  // namespace diskcond::dmc
