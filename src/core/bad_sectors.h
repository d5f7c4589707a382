// Bad sectors with dm-dust's semantics (issue 15, item 3): a list of bad byte ranges; a read that
// overlaps one fails (EIO) until a write has covered it. A write makes the whole sectors it covers
// good again ("remapped"), in the file it wrote only: every file a rule's path glob matches starts
// with the rule's list. Pure; not thread-safe (FaultRules holds it under its mutex).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/fault_rules.h"

namespace diskcond {

class BadSectors {
 public:
  // `bad`: the ranges as given; each is widened outward to whole sectors of `sector_bytes`
  // (REQUIRES: a power of two), and overlapping ones merge.
  BadSectors(std::span<const ByteRange> bad, uint32_t sector_bytes);

  // Whether a read of bytes [offset, offset + length) of `path` overlaps a sector still bad in
  // that file. A read of 0 bytes overlaps nothing.
  bool read_fails(const std::string& path, uint64_t offset, uint64_t length) const;
  // A write of bytes [offset, offset + length) of `path` reached the file: the bad sectors it
  // covers entirely are good in it from now on. Returns how many bytes of bad sectors that was.
  uint64_t wrote(const std::string& path, uint64_t offset, uint64_t length);
  // The ranges still bad in `path`.
  std::vector<ByteRange> bad_in(const std::string& path) const;

 private:
  std::vector<ByteRange> bad_;  // sector-aligned, sorted, disjoint
  uint64_t sector_;
  std::map<std::string, std::vector<ByteRange>> written_;  // files written: what is left bad
};

// Sorted, disjoint, merged copy of `ranges`, each widened outward to multiples of `align`.
std::vector<ByteRange> normalized_ranges(std::span<const ByteRange> ranges, uint64_t align);
// `ranges` (sorted, disjoint) less [begin, end).
std::vector<ByteRange> subtract_range(std::span<const ByteRange> ranges, uint64_t begin,
                                      uint64_t end);

}  // namespace diskcond
