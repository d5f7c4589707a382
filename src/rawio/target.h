// Target: what a test runs against (a block device, a regular file, or a test file rawio made in
// a directory), and how it has to be opened.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "core/result.h"

namespace diskcond::rawio {

enum class TargetKind { kBlockDevice, kRegularFile, kDirectory };
std::string_view target_kind_key(TargetKind kind);  // "block_device", "file", "directory"

// O_DIRECT policy: kAuto uses it where the target supports it and falls back to buffered I/O
// with a warning; kOn fails where unsupported; kOff never uses it.
enum class DirectMode { kAuto, kOn, kOff };

constexpr uint64_t kDefaultCreatedFileBytes = 256ull << 20;

struct Target {
  std::string name;     // as the user typed it
  std::string io_path;  // what is opened: the device, the file, or the test file
  TargetKind kind = TargetKind::kRegularFile;
  dev_t rdev = 0;               // block devices: the device number
  uint64_t size_bytes = 0;      // bytes usable from offset 0 (0 until a test file is made)
  uint32_t sector_bytes = 512;  // O_DIRECT alignment of offsets, lengths and buffers
  bool direct = true;           // open with O_DIRECT
  bool direct_refused = false;  // kAuto fell back to buffered: the file system refused O_DIRECT
  bool create = false;          // io_path does not exist yet: rawio makes, fills and removes it
  // Block devices: open for writing with O_EXCL, so the kernel refuses if the device is mounted
  // or claimed after the safety checks passed. Not set when --force-write named the device.
  bool exclusive_writes = false;
};

// Looks at `path` without changing anything: kind, size, sector size. A path that does not exist
// but whose directory does becomes a file for rawio to create, except under /dev, where it is a
// device name that does not exist ("no such device <path>"). Errors name the path.
Result<Target> inspect_target(const std::string& path);

// Decides target.direct under `mode`, by opening io_path (or its directory's test file once it
// exists) with O_DIRECT. `warning` receives a one-line message when falling back. For targets
// still to be created, call after create_test_file().
Status choose_direct_io(Target& target, DirectMode mode, std::string* warning);

// For a target still to be made: an error, before anything is touched, when the file system
// that would hold target.io_path has fewer than `bytes` free (as statvfs reports to unprivileged
// users). File systems that report no size at all (ramfs) pass. REQUIRES: target.create.
Status check_room_for_test_file(const Target& target, uint64_t bytes);

// Makes target.io_path (O_EXCL: never an existing file), `bytes` long, filled with non-zero data
// so reads hit allocated blocks, and fsyncs it. Registers it for removal on SIGINT/SIGTERM.
// REQUIRES: target.create.
Status create_test_file(Target& target, uint64_t bytes);
// Removes a file create_test_file made; a no-op for other targets.
void remove_test_file(const Target& target);

// Flags to open target.io_path with for a test that writes or only reads (O_EXCL for writes
// when target.exclusive_writes).
int open_flags(const Target& target, bool write);

}  // namespace diskcond::rawio
