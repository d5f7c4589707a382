// The expected state of one client's files: a fixed set of name slots, each empty or naming a
// file object whose contents are kept in memory. Renames and hard links move or share objects
// between slots exactly as POSIX does, so after any sequence of operations the model says what
// every name must read back as. Pure: no I/O, unit-tested without a mount.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace diskcond::harness::integrity {

using Bytes = std::vector<uint8_t>;

class ReferenceModel {
 public:
  explicit ReferenceModel(size_t slots) : slots_(slots) {}

  size_t slot_count() const { return slots_.size(); }
  bool occupied(size_t slot) const { return slots_[slot].has_value(); }
  // REQUIRES: occupied(slot). Both names of a hard link return the same object.
  const Bytes& contents(size_t slot) const { return objects_[*slots_[slot]]; }
  size_t size(size_t slot) const { return contents(slot).size(); }
  // True when both slots are occupied by the same file (hard links of each other).
  bool same_file(size_t a, size_t b) const;

  // REQUIRES: !occupied(slot). A new empty file.
  void create(size_t slot);
  // REQUIRES: occupied(slot). Writes past the end extend the file, filling any gap with zeros.
  void write(size_t slot, uint64_t offset, std::span<const uint8_t> data);
  // Grows with zeros or shrinks.
  void truncate(size_t slot, uint64_t size);
  // Plain fallocate: the size becomes at least offset + length; contents unchanged.
  void allocate(size_t slot, uint64_t offset, uint64_t length);
  // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE: [offset, offset + length) within the size reads
  // back as zeros; the size is unchanged.
  void punch_hole(size_t slot, uint64_t offset, uint64_t length);
  // rename(from, to). REQUIRES: occupied(from), from != to, !same_file(from, to) (POSIX makes
  // that case a no-op that keeps both names; callers avoid it). Replaces whatever `to` named.
  void rename(size_t from, size_t to);
  // link(from, to). REQUIRES: occupied(from), !occupied(to).
  void link(size_t from, size_t to);
  // REQUIRES: occupied(slot). The object goes away with its last name.
  void unlink(size_t slot);

  // For the checker's self-test: changes the expectation without touching any file.
  Bytes& mutable_contents(size_t slot) { return objects_[*slots_[slot]]; }

 private:
  std::vector<std::optional<size_t>> slots_;  // slot -> index into objects_
  std::vector<Bytes> objects_;                // never shrinks; unreferenced objects are cleared
};

}  // namespace diskcond::harness::integrity
