// How many times the machine's page cache was dropped (`echo 1` or `3` > drop_caches): the
// kernel's own count, /proc/vmstat `drop_pagecache`. A file's pages noted as partly written
// before a drop are no longer in memory (partial_pages.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

namespace diskcond::mount {

// The `drop_pagecache` value of a /proc/vmstat text; nullopt when it has none.
std::optional<uint64_t> parse_drop_pagecache(std::string_view vmstat);

class PageCacheDrops {
 public:
  // Opens /proc/vmstat (or `path`, for tests); unavailable() when it cannot be read or has no
  // drop_pagecache line.
  explicit PageCacheDrops(const char* path = "/proc/vmstat");
  ~PageCacheDrops();
  PageCacheDrops(const PageCacheDrops&) = delete;
  PageCacheDrops& operator=(const PageCacheDrops&) = delete;
  bool unavailable() const { return fd_ < 0; }
  // The count now (reads the file: tens of microseconds). nullopt when unavailable.
  std::optional<uint64_t> now();
  // The count last read by now(), or read now when that is older than kRecentNs (`clock_ns`:
  // steady time). For noting writes, where a count read a little late costs only a later
  // charge, never a free read: a drop between that read and a later now() makes them differ.
  uint64_t recent(uint64_t clock_ns);
  static constexpr uint64_t kRecentNs = 100'000'000;

 private:
  int fd_ = -1;
  std::atomic<uint64_t> last_{0};
  std::atomic<uint64_t> last_read_ns_{0};
};

}  // namespace diskcond::mount
