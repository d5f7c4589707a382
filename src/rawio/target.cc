#include "rawio/target.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "posix/unique_fd.h"
#include "rawio/cleanup.h"
#include "rawio/offsets.h"

namespace diskcond::rawio {
namespace {

std::string errno_text(int err) {
  return strerror(err);
}

using posix::UniqueFd;

// O_DIRECT alignment a file system asks for (statx STATX_DIOALIGN), or 0 if it does not say.
uint32_t file_dio_alignment(const std::string& path) {
  struct statx stx {};
  if (statx(AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &stx) != 0) return 0;
  if (!(stx.stx_mask & STATX_DIOALIGN)) return 0;
  return std::max(stx.stx_dio_offset_align, stx.stx_dio_mem_align);
}

Result<Target> inspect_block_device(Target t, const struct stat& st) {
  t.kind = TargetKind::kBlockDevice;
  t.rdev = st.st_rdev;
  UniqueFd dev(::open(t.io_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (dev.get() < 0)
    return make_error(fmt::format("cannot open {}: {}", t.name, errno_text(errno)));
  uint64_t bytes = 0;
  int sector = 0;
  if (ioctl(dev.get(), BLKGETSIZE64, &bytes) != 0) {
    return make_error(fmt::format("BLKGETSIZE64 on {}: {}", t.name, errno_text(errno)));
  }
  if (ioctl(dev.get(), BLKSSZGET, &sector) != 0) {
    return make_error(fmt::format("BLKSSZGET on {}: {}", t.name, errno_text(errno)));
  }
  t.size_bytes = bytes;
  t.sector_bytes = sector > 0 ? static_cast<uint32_t>(sector) : 512;
  return t;
}

// True when `dir` (an existing directory) is /dev or below it, symlinks resolved.
bool is_under_dev(const std::filesystem::path& dir) {
  std::error_code ec;
  const std::string real = std::filesystem::canonical(dir, ec).string();
  return !ec && (real == "/dev" || real.rfind("/dev/", 0) == 0);
}

}  // namespace

std::string_view target_kind_key(TargetKind kind) {
  switch (kind) {
    case TargetKind::kBlockDevice:
      return "block_device";
    case TargetKind::kRegularFile:
      return "file";
    case TargetKind::kDirectory:
      return "directory";
  }
  return "?";
}

Result<Target> inspect_target(const std::string& path) {
  if (path.empty()) return make_error("the target path is empty");
  Target t;
  t.name = path;
  t.io_path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) parent = ".";
    struct stat pst {};
    if (err == ENOENT && ::stat(parent.c_str(), &pst) == 0 && S_ISDIR(pst.st_mode)) {
      // A mistyped device name: a file made there would measure RAM (devtmpfs).
      if (is_under_dev(parent)) return make_error(fmt::format("no such device {}", path));
      t.kind = TargetKind::kRegularFile;
      t.create = true;
      return t;
    }
    return make_error(fmt::format("cannot use {}: {}", path, errno_text(err)));
  }
  if (S_ISBLK(st.st_mode)) return inspect_block_device(std::move(t), st);
  if (S_ISREG(st.st_mode)) {
    t.kind = TargetKind::kRegularFile;
    t.size_bytes = static_cast<uint64_t>(st.st_size);
    if (uint32_t align = file_dio_alignment(path)) t.sector_bytes = align;
    return t;
  }
  if (S_ISDIR(st.st_mode)) {
    t.kind = TargetKind::kDirectory;
    t.create = true;
    t.io_path = (std::filesystem::path(path) / fmt::format("rawio.{}.tmp", getpid())).string();
    return t;
  }
  return make_error(
      fmt::format("{} is neither a block device, a regular file nor a directory", path));
}

int open_flags(const Target& target, bool write) {
  return (write ? O_RDWR : O_RDONLY) | O_CLOEXEC | (target.direct ? O_DIRECT : 0) |
         (write && target.exclusive_writes ? O_EXCL : 0);
}

Status choose_direct_io(Target& target, DirectMode mode, std::string* warning) {
  if (mode == DirectMode::kOff) {
    target.direct = false;
    return ok_status();
  }
  UniqueFd f(::open(target.io_path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT));
  if (f.get() >= 0) {
    target.direct = true;
    if (target.kind != TargetKind::kBlockDevice) {
      if (uint32_t align = file_dio_alignment(target.io_path)) target.sector_bytes = align;
    }
    return ok_status();
  }
  int err = errno;
  if (err != EINVAL) {
    return make_error(fmt::format("cannot open {}: {}", target.io_path, errno_text(err)));
  }
  if (mode == DirectMode::kOn) {
    return make_error(fmt::format(
        "{} does not support O_DIRECT (open returned EINVAL, as on ramfs and some FUSE file "
        "systems): use --direct=auto or --direct=off to measure buffered I/O",
        target.name));
  }
  target.direct = false;
  target.direct_refused = true;
  if (warning) {
    *warning = fmt::format(
        "{} does not support O_DIRECT (open returned EINVAL): falling back to buffered I/O, which "
        "measures the page cache rather than the storage",
        target.name);
  }
  return ok_status();
}

Status check_room_for_test_file(const Target& target, uint64_t bytes) {
  std::filesystem::path dir = std::filesystem::path(target.io_path).parent_path();
  if (dir.empty()) dir = ".";
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0 || fs.f_blocks == 0) return ok_status();
  const uint64_t free_bytes = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (bytes <= free_bytes) return ok_status();
  return make_error(
      fmt::format("a {}-byte test file does not fit in {} ({} bytes free); use a smaller -n", bytes,
                  dir.string(), free_bytes));
}

Status create_test_file(Target& target, uint64_t bytes) {
  UniqueFd f(::open(target.io_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (f.get() < 0) {
    return make_error(
        fmt::format("cannot create test file {}: {}", target.io_path, errno_text(errno)));
  }
  register_cleanup_path(target.io_path);
  auto fail = [&](std::string message) -> Status {
    f.reset();
    remove_test_file(target);
    return make_error(std::move(message));
  };
  // Allocate first where the file system can (fails cleanly on a full disk), then write real
  // data so that reads hit allocated blocks, not holes.
  if (int rc = posix_fallocate(f.get(), 0, static_cast<off_t>(bytes));
      rc != 0 && rc != EOPNOTSUPP) {
    return fail(
        fmt::format("cannot allocate {} bytes for {}: {}", bytes, target.io_path, errno_text(rc)));
  }
  constexpr size_t kChunk = 1 << 20;
  std::unique_ptr<uint64_t[]> chunk(new uint64_t[kChunk / 8]);
  Random64 rng(0x7261770);
  for (size_t i = 0; i < kChunk / 8; ++i) chunk[i] = rng.next() | 1;
  for (uint64_t done = 0; done < bytes;) {
    if (cancel_requested().load()) return fail("interrupted while creating the test file");
    size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, bytes - done));
    ssize_t w = ::pwrite(f.get(), chunk.get(), n, static_cast<off_t>(done));
    if (w <= 0) {
      return fail(fmt::format("cannot fill test file {}: {}", target.io_path,
                              w < 0 ? errno_text(errno) : "no progress"));
    }
    done += static_cast<uint64_t>(w);
  }
  if (::fsync(f.get()) != 0)
    return fail(fmt::format("fsync {}: {}", target.io_path, errno_text(errno)));
  target.size_bytes = bytes;
  return ok_status();
}

void remove_test_file(const Target& target) {
  if (!target.create) return;
  ::unlink(target.io_path.c_str());
  unregister_cleanup_path(target.io_path);
}

}  // namespace diskcond::rawio
