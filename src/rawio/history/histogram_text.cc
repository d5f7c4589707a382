#include "rawio/history/histogram_text.h"

#include <fmt/format.h>

#include <charconv>

#include "rawio/latency_histogram.h"

namespace diskcond::rawio::history {

std::string buckets_to_text(const BucketList& buckets) {
  std::string out;
  for (auto [index, samples] : buckets) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}:{}", index, samples);
  }
  return out;
}

Result<BucketList> buckets_from_text(const std::string& text, size_t bucket_count) {
  BucketList buckets;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    uint32_t index = 0;
    uint64_t samples = 0;
    auto a = std::from_chars(p, end, index);
    if (a.ec != std::errc() || a.ptr == end || *a.ptr != ':') break;
    auto b = std::from_chars(a.ptr + 1, end, samples);
    if (b.ec != std::errc() || index >= bucket_count) break;
    buckets.emplace_back(index, samples);
    p = b.ptr;
    if (p == end) return buckets;
    if (*p != ' ') break;
    ++p;
  }
  if (p == end && (text.empty() || text.back() != ' ')) return buckets;
  return make_error(fmt::format("history database: bad latency buckets '{}'", text.substr(0, 40)));
}

}  // namespace diskcond::rawio::history
