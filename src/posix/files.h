// Small POSIX file helpers shared by the settings store, the run directory, rawio and the
// integrity checker. Each returns 0 (or a value >= 0) or -errno, read right after the call.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace diskcond::posix {

// Writes all of `text` to `fd`, retrying short writes and EINTR. 0 or -errno.
int write_all(int fd, std::string_view text);

// pwrite of all `size` bytes at `offset`, retrying short writes and EINTR. Returns the bytes
// written, fewer only when the file system stopped early (a full disk after part of it was
// written), or -errno when nothing was.
ssize_t pwrite_all(int fd, const char* data, size_t size, off_t offset);

// Replaces `path` with `text` atomically: writes <path>.tmp (mode `mode`), fsyncs it and renames
// it over `path`, so a reader sees the old or the new content, and the new one survives a crash.
// The temporary file is removed on failure. 0 or -errno.
int replace_file(const std::string& path, std::string_view text, mode_t mode);

// "/srv/my data" -> "srv-my\x20data", like `systemd-escape --path`: leading and trailing slashes
// dropped, '/' -> '-', letters, digits, '_', ':' and a '.' that does not start the name kept,
// every other byte \xNN; "/" -> "-".
std::string escape_path(std::string_view path);

// 64-bit FNV-1a of `text`: a short, stable name for a path too long to escape into one.
uint64_t fnv1a_64(std::string_view text);

}  // namespace diskcond::posix
