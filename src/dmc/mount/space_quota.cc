#include "dmc/mount/space_quota.h"

#include <fcntl.h>
#include <fts.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace diskcond::mount {
namespace {

constexpr uint64_t kBlock = 4096;

uint64_t round_up(uint64_t bytes) {
  return (bytes + kBlock - 1) / kBlock * kBlock;
}

}  // namespace

uint64_t allocated_bytes_under(int dir_fd) {
  std::string root = "/proc/self/fd/" + std::to_string(dir_fd);
  char* paths[] = {root.data(), nullptr};
  // FTS_COMFOLLOW: the root (a /proc magic link) is followed; FTS_PHYSICAL: no other symlink is;
  // FTS_XDEV: file systems mounted inside are not ours.
  FTS* fts = fts_open(paths, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_XDEV | FTS_NOCHDIR, nullptr);
  if (fts == nullptr) return 0;
  std::set<std::pair<dev_t, ino_t>> seen;
  uint64_t total = 0;
  while (FTSENT* e = fts_read(fts)) {
    if (e->fts_info == FTS_DP || e->fts_info == FTS_DNR || e->fts_info == FTS_ERR ||
        e->fts_info == FTS_NS || e->fts_statp == nullptr) {
      continue;
    }
    const struct stat& st = *e->fts_statp;
    if (st.st_nlink > 1 && !seen.insert({st.st_dev, st.st_ino}).second) continue;
    total += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  fts_close(fts);
  return total;
}

uint64_t worst_case_write_allocation(uint64_t offset, uint64_t size, uint64_t st_size,
                                     uint64_t allocated) {
  const bool has_holes = allocated < round_up(st_size);
  if (has_holes) return round_up(size);
  // Dense: the blocks from the first one past the end (or the write's own first block, when it
  // starts beyond the end and leaves a hole) to the write's last.
  const uint64_t end = offset + size;
  const uint64_t first_new = std::max(round_up(st_size), offset / kBlock * kBlock);
  return round_up(end) > first_new ? round_up(end) - first_new : 0;
}

uint64_t freed_by_removing(int dir_fd, const char* name) {
  struct stat st;
  if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) return 0;
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

uint64_t allocated_bytes(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
}

void SpaceQuota::set_capacity(uint64_t capacity, int root_fd) {
  std::lock_guard lock(walk_mu_);
  if (capacity != 0 && !counted_) {
    used_.store(allocated_bytes_under(root_fd));
    counted_ = true;
  }
  capacity_.store(capacity);
}

bool SpaceQuota::reserve(uint64_t bytes) {
  const uint64_t capacity = capacity_.load();
  if (capacity == 0 || bytes == 0) return true;
  uint64_t reserved = reserved_.load();
  do {
    if (used_.load() + reserved + bytes > capacity) return false;
  } while (!reserved_.compare_exchange_weak(reserved, reserved + bytes));
  return true;
}

void SpaceQuota::settle(uint64_t reserved, int64_t delta) {
  if (capacity_.load() == 0 && reserved == 0) return;
  if (reserved != 0) reserved_.fetch_sub(reserved);
  if (delta >= 0) {
    used_.fetch_add(static_cast<uint64_t>(delta));
    return;
  }
  const uint64_t freed = static_cast<uint64_t>(-delta);
  uint64_t used = used_.load();
  while (!used_.compare_exchange_weak(used, used - std::min(used, freed))) {
  }
}

void SpaceQuota::adjust(struct statvfs& sv) const {
  const uint64_t capacity = capacity_.load();
  if (capacity == 0 || sv.f_frsize == 0) return;
  const uint64_t used = used_.load() + reserved_.load();
  const uint64_t free_bytes = capacity > used ? capacity - used : 0;
  sv.f_blocks = capacity / sv.f_frsize;
  sv.f_bfree = std::min<uint64_t>(sv.f_bfree, free_bytes / sv.f_frsize);
  sv.f_bavail = std::min<uint64_t>(sv.f_bavail, free_bytes / sv.f_frsize);
}

}  // namespace diskcond::mount
