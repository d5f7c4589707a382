#include "core/bad_sectors.h"

#include <algorithm>

namespace diskcond {

std::vector<ByteRange> normalized_ranges(std::span<const ByteRange> ranges, uint64_t align) {
  std::vector<ByteRange> out;
  for (const ByteRange& r : ranges) {
    const uint64_t end = r.end % align == 0 ? r.end : r.end + (align - r.end % align);
    out.push_back({r.begin - r.begin % align, std::max(end, r.end)});
  }
  std::sort(out.begin(), out.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  std::vector<ByteRange> merged;
  for (const ByteRange& r : out) {
    if (!merged.empty() && r.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, r.end);
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

std::vector<ByteRange> subtract_range(std::span<const ByteRange> ranges, uint64_t begin,
                                      uint64_t end) {
  std::vector<ByteRange> out;
  for (const ByteRange& r : ranges) {
    if (r.end <= begin || r.begin >= end) {
      out.push_back(r);
      continue;
    }
    if (r.begin < begin) out.push_back({r.begin, begin});
    if (r.end > end) out.push_back({end, r.end});
  }
  return out;
}

BadSectors::BadSectors(std::span<const ByteRange> bad, uint32_t sector_bytes)
    : bad_(normalized_ranges(bad, sector_bytes)), sector_(sector_bytes) {}

std::vector<ByteRange> BadSectors::bad_in(const std::string& path) const {
  auto it = written_.find(path);
  return it == written_.end() ? bad_ : it->second;
}

bool BadSectors::read_fails(const std::string& path, uint64_t offset, uint64_t length) const {
  if (length == 0) return false;
  auto it = written_.find(path);
  const std::vector<ByteRange>& bad = it == written_.end() ? bad_ : it->second;
  const uint64_t end = offset + length < offset ? UINT64_MAX : offset + length;
  return std::any_of(bad.begin(), bad.end(),
                     [&](const ByteRange& r) { return r.begin < end && offset < r.end; });
}

uint64_t BadSectors::wrote(const std::string& path, uint64_t offset, uint64_t length) {
  // The whole sectors inside [offset, offset + length).
  const uint64_t begin = offset % sector_ == 0 ? offset : offset + (sector_ - offset % sector_);
  const uint64_t end = (offset + length) - (offset + length) % sector_;
  if (begin >= end) return 0;
  std::vector<ByteRange> before = bad_in(path);
  uint64_t repaired = 0;
  for (const ByteRange& r : before) {
    const uint64_t a = std::max(r.begin, begin), b = std::min(r.end, end);
    if (a < b) repaired += b - a;
  }
  if (repaired == 0) return 0;
  written_[path] = subtract_range(before, begin, end);
  return repaired;
}

}  // namespace diskcond
