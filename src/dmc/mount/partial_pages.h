// The pages of one file that the kernel's page cache holds but will still ask the daemon for.
//
// A write through the mount's page cache (write-through FUSE, no writeback_cache) copies the
// caller's data into the kernel's pages, and the kernel marks a page up to date only when one
// write request covered it whole. A page written only in part (the last page of nearly every
// small file) stays in the cache but not up to date, so the first read of it is sent to the
// daemon. On a local file system that page would be in memory: reading back what was just
// written is free. So such a read is answered without the model, once; the kernel then holds
// the page up to date and never asks for it again unless it drops it.
//
// A page the kernel dropped must be read from the disk again. Two events drop pages:
//   - the kernel forgets the inode (memory pressure, `echo 2` or `3` > drop_caches): the Inode,
//     and this set with it, goes away;
//   - `echo 1` (or 3) > /proc/sys/vm/drop_caches keeps the inode but drops its clean pages. The
//     kernel counts these drops (/proc/vmstat drop_pagecache, page_cache_drops.h): the caller
//     passes the current count as `drops`, and pages noted before a different count are not free.
// Pages the kernel evicts one by one under memory pressure are not seen: such a page's next read
// is free once (docs/conditioner.md "Caching").
//
// A direct write (O_DIRECT, or a -nocache handle) makes the kernel drop the pages it covers:
// they are no longer free (note_direct_write).
//
// Pure (no clock, no I/O) and thread-safe: one small mutex, taken only by writes that leave a
// page partly written and by reads of files that have such pages.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

namespace diskcond::mount {

class PartialPages {
 public:
  static constexpr uint64_t kPageBytes = 4096;
  // At most this many pages are remembered per file; beyond it the highest are forgotten (and
  // charged when read: slower, never faster).
  static constexpr size_t kMaxPages = 4096;

  struct Range {
    uint64_t offset;
    uint64_t length;
    bool operator==(const Range&) const = default;
  };

  // A buffered write request of [offset, offset + size) went through the kernel's page cache;
  // `drops` is the page-cache drop count now.
  void note_write(uint64_t offset, uint64_t size, uint64_t drops);
  // A write that bypassed the page cache (the kernel invalidated its pages).
  void note_direct_write(uint64_t offset, uint64_t size);
  // Whether a read of [offset, offset + size) touches a page noted as partly written (cheap;
  // the caller reads the drop count only when it does).
  bool touches(uint64_t offset, uint64_t size) const;
  // The kernel asks for [offset, offset + size) from its page cache, `drops` being the drop
  // count now: returns the parts the disk must be read for (in order), and forgets the pages
  // the read served (the kernel holds them up to date now).
  std::vector<Range> misses(uint64_t offset, uint64_t size, uint64_t drops);
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::set<uint64_t> pages_;  // page indexes; guarded by mu_
  uint64_t drops_ = 0;        // the drop count when pages_ was filled; guarded by mu_
};

}  // namespace diskcond::mount
