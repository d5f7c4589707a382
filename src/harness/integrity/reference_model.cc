#include "harness/integrity/reference_model.h"

#include <algorithm>

namespace diskcond::harness::integrity {

bool ReferenceModel::same_file(size_t a, size_t b) const {
  return slots_[a] && slots_[b] && *slots_[a] == *slots_[b];
}

void ReferenceModel::create(size_t slot) {
  objects_.emplace_back();
  slots_[slot] = objects_.size() - 1;
}

void ReferenceModel::write(size_t slot, uint64_t offset, std::span<const uint8_t> data) {
  Bytes& b = mutable_contents(slot);
  if (b.size() < offset + data.size()) b.resize(offset + data.size(), 0);
  std::copy(data.begin(), data.end(), b.begin() + static_cast<ptrdiff_t>(offset));
}

void ReferenceModel::truncate(size_t slot, uint64_t size) {
  mutable_contents(slot).resize(size, 0);
}

void ReferenceModel::allocate(size_t slot, uint64_t offset, uint64_t length) {
  Bytes& b = mutable_contents(slot);
  if (b.size() < offset + length) b.resize(offset + length, 0);
}

void ReferenceModel::punch_hole(size_t slot, uint64_t offset, uint64_t length) {
  Bytes& b = mutable_contents(slot);
  if (offset >= b.size()) return;
  const uint64_t end = std::min<uint64_t>(b.size(), offset + length);
  std::fill(b.begin() + static_cast<ptrdiff_t>(offset), b.begin() + static_cast<ptrdiff_t>(end), 0);
}

void ReferenceModel::rename(size_t from, size_t to) {
  if (slots_[to]) unlink(to);
  slots_[to] = slots_[from];
  slots_[from].reset();
}

void ReferenceModel::link(size_t from, size_t to) {
  slots_[to] = slots_[from];
}

void ReferenceModel::unlink(size_t slot) {
  const size_t object = *slots_[slot];
  slots_[slot].reset();
  for (const auto& s : slots_) {
    if (s == object) return;
  }
  Bytes().swap(objects_[object]);
}

}  // namespace diskcond::harness::integrity
