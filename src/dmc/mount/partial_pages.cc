#include "dmc/mount/partial_pages.h"

#include <algorithm>

namespace diskcond::mount {
namespace {

constexpr uint64_t kPage = PartialPages::kPageBytes;

// The page indexes [first, last] that [offset, offset + size) touches. REQUIRES: size > 0.
uint64_t first_page(uint64_t offset) {
  return offset / kPage;
}
uint64_t last_page(uint64_t offset, uint64_t size) {
  return (offset + size - 1) / kPage;
}

}  // namespace

void PartialPages::note_write(uint64_t offset, uint64_t size, uint64_t drops) {
  if (size == 0) return;
  const uint64_t end = offset + size;
  const uint64_t first = first_page(offset);
  const uint64_t last = last_page(offset, size);
  const bool first_partial = offset % kPage != 0 || (first == last && end % kPage != 0);
  const bool last_partial = last != first && end % kPage != 0;
  std::lock_guard lock(mu_);
  if (drops != drops_) {  // what was noted before the kernel dropped its pages is gone
    pages_.clear();
    drops_ = drops;
  }
  // Pages this write covers whole are up to date now, whatever earlier writes left.
  const uint64_t whole_begin = first + (first_partial ? 1 : 0);
  const uint64_t whole_end = last + 1 - (last_partial ? 1 : 0);
  if (whole_begin < whole_end && !pages_.empty()) {
    pages_.erase(pages_.lower_bound(whole_begin), pages_.lower_bound(whole_end));
  }
  if (first_partial) pages_.insert(first);
  if (last_partial) pages_.insert(last);
  while (pages_.size() > kMaxPages) pages_.erase(std::prev(pages_.end()));
}

void PartialPages::note_direct_write(uint64_t offset, uint64_t size) {
  if (size == 0) return;
  std::lock_guard lock(mu_);
  if (pages_.empty()) return;
  pages_.erase(pages_.lower_bound(first_page(offset)), pages_.upper_bound(last_page(offset, size)));
}

bool PartialPages::touches(uint64_t offset, uint64_t size) const {
  if (size == 0) return false;
  std::lock_guard lock(mu_);
  auto it = pages_.lower_bound(first_page(offset));
  return it != pages_.end() && *it <= last_page(offset, size);
}

std::vector<PartialPages::Range> PartialPages::misses(uint64_t offset, uint64_t size,
                                                      uint64_t drops) {
  std::vector<Range> out;
  if (size == 0) return out;
  const uint64_t end = offset + size;
  std::lock_guard lock(mu_);
  if (drops != drops_) pages_.clear();
  uint64_t from = offset;  // start of the current run of bytes to charge
  auto it = pages_.lower_bound(first_page(offset));
  while (it != pages_.end() && *it <= last_page(offset, size)) {
    const uint64_t page_start = std::max(*it * kPage, offset);
    const uint64_t page_end = std::min((*it + 1) * kPage, end);
    if (page_start > from) out.push_back({from, page_start - from});
    from = page_end;
    it = pages_.erase(it);
  }
  if (from < end) out.push_back({from, end - from});
  return out;
}

size_t PartialPages::size() const {
  std::lock_guard lock(mu_);
  return pages_.size();
}

}  // namespace diskcond::mount
