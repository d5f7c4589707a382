// The pretend disk's size (Profile::capacity_bytes): what statfs reports and where a write fails
// with ENOSPC, so that a program can be tried against a full disk.
//
// Usage is the backing tree's allocated bytes (st_blocks * 512, each inode once), counted by a walk
// when a capacity is set and kept up to date by the handlers: an operation that may allocate
// reserves its worst case first (refused with ENOSPC when that would pass the capacity), then
// settles with the allocation it really changed. Space freed by unlink counts once the last name
// goes (a file still open keeps its blocks on the backing disk; the quota frees them at once).
// Thread-safe; with no capacity every call is a no-op and reserve() always succeeds.
#pragma once

#include <sys/statvfs.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace diskcond::mount {

class SpaceQuota {
 public:
  // 0 turns the quota off. Otherwise walks the tree under `root_fd` (a directory) to count its
  // usage; a later call with a capacity keeps the count and only changes the limit.
  void set_capacity(uint64_t capacity, int root_fd);
  uint64_t capacity() const { return capacity_.load(); }
  uint64_t used() const { return used_.load(); }

  // Reserves `bytes` of new allocation. False when used + reserved + bytes would pass the
  // capacity: the caller fails with ENOSPC and settles nothing.
  [[nodiscard]] bool reserve(uint64_t bytes);
  // After the operation (whether it succeeded or not): releases `reserved` and applies `delta`,
  // the change in allocated bytes it made (negative when it freed space).
  void settle(uint64_t reserved, int64_t delta);

  // With a capacity: the totals of `sv` become the pretend disk's (the block sizes and the
  // inode counts stay the backing file system's; free space is never more than it has).
  void adjust(struct statvfs& sv) const;

 private:
  std::mutex walk_mu_;  // one walk at a time
  std::atomic<uint64_t> capacity_{0};
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> reserved_{0};
  bool counted_ = false;  // under walk_mu_
};

// Allocated bytes of the tree under the directory `dir_fd`: st_blocks * 512 of every file,
// directory and symlink, each inode once, not crossing into other file systems.
uint64_t allocated_bytes_under(int dir_fd);

// The most new allocation a write of `size` bytes at `offset` can need in a file of `st_size`
// bytes with `allocated` bytes allocated: the part past the end of the file, or the whole write
// when the file has holes. In whole 4 KiB blocks.
uint64_t worst_case_write_allocation(uint64_t offset, uint64_t size, uint64_t st_size,
                                     uint64_t allocated);

// Bytes that removing `name` from the directory `dir_fd` frees: its allocation when it is a
// directory or the last name of anything else; 0 when it has other names or cannot be read.
uint64_t freed_by_removing(int dir_fd, const char* name);

// Allocated bytes of the open file `fd` (st_blocks * 512), 0 when fstat fails.
uint64_t allocated_bytes(int fd);

}  // namespace diskcond::mount
