#include "dmc/mount/page_cache_drops.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <charconv>

namespace diskcond::mount {

std::optional<uint64_t> parse_drop_pagecache(std::string_view vmstat) {
  constexpr std::string_view kKey = "drop_pagecache ";
  size_t at = 0;
  while (at < vmstat.size()) {
    const size_t eol = std::min(vmstat.find('\n', at), vmstat.size());
    const std::string_view line = vmstat.substr(at, eol - at);
    if (line.starts_with(kKey)) {
      const std::string_view digits = line.substr(kKey.size());
      uint64_t value = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
      return value;
    }
    at = eol + 1;
  }
  return std::nullopt;
}

PageCacheDrops::PageCacheDrops(const char* path) : fd_(open(path, O_RDONLY | O_CLOEXEC)) {
  if (fd_ >= 0 && !now()) {
    close(fd_);
    fd_ = -1;
  }
}

PageCacheDrops::~PageCacheDrops() {
  if (fd_ >= 0) close(fd_);
}

std::optional<uint64_t> PageCacheDrops::now() {
  if (fd_ < 0) return std::nullopt;
  std::array<char, 16384> buf;  // /proc/vmstat is about 4 KiB
  const ssize_t n = pread(fd_, buf.data(), buf.size(), 0);
  if (n <= 0) return std::nullopt;
  const std::optional<uint64_t> count =
      parse_drop_pagecache(std::string_view(buf.data(), static_cast<size_t>(n)));
  if (count) last_.store(*count, std::memory_order_relaxed);
  return count;
}

uint64_t PageCacheDrops::recent(uint64_t clock_ns) {
  const uint64_t read_at = last_read_ns_.load(std::memory_order_relaxed);
  if (read_at == 0 || clock_ns - read_at >= kRecentNs) {
    last_read_ns_.store(clock_ns, std::memory_order_relaxed);
    now();
  }
  return last_.load(std::memory_order_relaxed);
}

}  // namespace diskcond::mount
