#include "dmc/mount/buffer_pool.h"

#include <bit>
#include <cstdlib>
#include <utility>

#include <sys/mman.h>

namespace diskcond::mount {

BufferPool::Buffer& BufferPool::Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    this->~Buffer();
    pool_ = std::exchange(other.pool_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

BufferPool::Buffer::~Buffer() {
  if (data_ == nullptr) return;
  if (pool_ != nullptr) {
    pool_->give_back(data_, capacity_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
}

BufferPool::~BufferPool() {
  for (auto& list : free_) {
    for (char* p : list) std::free(p);
  }
}

size_t BufferPool::allocation_bytes(size_t capacity) {
  if (capacity < kHugeFromBytes) return capacity;
  return (capacity + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

size_t BufferPool::class_of(size_t capacity) {
  return static_cast<size_t>(std::countr_zero(capacity / kMinClassBytes));
}

BufferPool::Buffer BufferPool::get(size_t size) {
  Buffer b;
  b.size_ = size;
  b.capacity_ = std::bit_ceil(std::max(size, kMinClassBytes));
  const bool pooled = b.capacity_ <= kMaxPooledBytes;
  if (pooled) {
    std::lock_guard lock(mu_);
    auto& list = free_[class_of(b.capacity_)];
    if (!list.empty()) {
      b.data_ = list.back();
      list.pop_back();
      cached_bytes_ -= allocation_bytes(b.capacity_);
      b.pool_ = this;
      return b;
    }
    ++allocations_;
  }
  const size_t bytes = allocation_bytes(b.capacity_);
  const bool huge = b.capacity_ >= kHugeFromBytes;
  void* p = nullptr;
  if (posix_memalign(&p, huge ? kHugePageBytes : kMinClassBytes, bytes) != 0) p = nullptr;
  // Advice only: without huge pages (THP "never") the buffer works the same, a little slower.
  if (p != nullptr && huge) madvise(p, bytes, MADV_HUGEPAGE);
  b.data_ = static_cast<char*>(p);
  b.pool_ = pooled ? this : nullptr;
  return b;
}

void BufferPool::give_back(char* data, size_t capacity) {
  {
    std::lock_guard lock(mu_);
    const size_t bytes = allocation_bytes(capacity);
    if (cached_bytes_ + bytes <= max_cached_bytes_) {
      free_[class_of(capacity)].push_back(data);
      cached_bytes_ += bytes;
      return;
    }
  }
  std::free(data);
}

size_t BufferPool::cached_bytes() const {
  std::lock_guard lock(mu_);
  return cached_bytes_;
}

uint64_t BufferPool::allocations() const {
  std::lock_guard lock(mu_);
  return allocations_;
}

}  // namespace diskcond::mount
