#include "dmc/mount/buffer_pool.h"

#include <bit>
#include <cstdlib>
#include <utility>

#include <sys/mman.h>

namespace diskcond::mount {

char* allocate_data_buffer(size_t bytes, bool huge) {
  const size_t allocated = huge ? BufferPool::huge_allocation_bytes(bytes) : bytes;
  void* p = nullptr;
  const size_t alignment = huge ? BufferPool::kHugePageBytes : BufferPool::kMinClassBytes;
  if (posix_memalign(&p, alignment, allocated) != 0) return nullptr;
  if (huge) madvise(p, allocated, MADV_HUGEPAGE);
  return static_cast<char*>(p);
}

BufferPool::Buffer& BufferPool::Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    this->~Buffer();
    pool_ = std::exchange(other.pool_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    huge_ = std::exchange(other.huge_, false);
  }
  return *this;
}

BufferPool::Buffer::~Buffer() {
  if (data_ == nullptr) return;
  if (pool_ != nullptr) {
    pool_->give_back(data_, capacity_, huge_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
}

BufferPool::~BufferPool() {
  for (auto* lists : {&free_, &free_huge_}) {
    for (auto& list : *lists) {
      for (char* p : list) std::free(p);
    }
  }
}

size_t BufferPool::huge_allocation_bytes(size_t capacity) {
  return (capacity + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

size_t BufferPool::class_of(size_t capacity) {
  return static_cast<size_t>(std::countr_zero(capacity / kMinClassBytes));
}

BufferPool::Buffer BufferPool::get(size_t size) {
  Buffer b;
  b.size_ = size;
  b.capacity_ = std::bit_ceil(std::max(size, kMinClassBytes));
  if (b.capacity_ > kMaxPooledBytes) {
    b.data_ = allocate_data_buffer(b.capacity_, false);
    return b;
  }
  const size_t c = class_of(b.capacity_);
  {
    std::lock_guard lock(mu_);
    b.pool_ = this;
    // A kept huge buffer first, then a new one while fewer than kMaxHugeBuffers exist, then an
    // ordinary one, kept or new.
    if (!free_huge_[c].empty()) {
      b.data_ = free_huge_[c].back();
      free_huge_[c].pop_back();
      cached_bytes_ -= huge_allocation_bytes(b.capacity_);
      b.huge_ = true;
      return b;
    }
    b.huge_ = b.capacity_ >= kHugeFromBytes && huge_buffers_ < kMaxHugeBuffers;
    if (!b.huge_ && !free_[c].empty()) {
      b.data_ = free_[c].back();
      free_[c].pop_back();
      cached_bytes_ -= b.capacity_;
      return b;
    }
    ++allocations_;
    if (b.huge_) ++huge_buffers_;
  }
  b.data_ = allocate_data_buffer(b.capacity_, b.huge_);
  if (b.data_ == nullptr && b.huge_) {
    std::lock_guard lock(mu_);
    --huge_buffers_;
  }
  return b;
}

void BufferPool::give_back(char* data, size_t capacity, bool huge) {
  {
    std::lock_guard lock(mu_);
    const size_t bytes = huge ? huge_allocation_bytes(capacity) : capacity;
    if (cached_bytes_ + bytes <= max_cached_bytes_) {
      (huge ? free_huge_ : free_)[class_of(capacity)].push_back(data);
      cached_bytes_ += bytes;
      return;
    }
    if (huge) --huge_buffers_;
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

int BufferPool::huge_buffers() const {
  std::lock_guard lock(mu_);
  return huge_buffers_;
}

}  // namespace diskcond::mount
