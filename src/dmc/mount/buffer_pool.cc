#include "dmc/mount/buffer_pool.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <utility>

#include <sched.h>
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

BufferPool::BufferPool(size_t max_cached_bytes, CurrentCpu current_cpu)
    : max_cached_bytes_(max_cached_bytes),
      current_cpu_(current_cpu ? std::move(current_cpu) : CurrentCpu(sched_getcpu)) {}

BufferPool::~BufferPool() {
  for (auto* lists : {&free_, &free_huge_}) {
    for (auto& list : *lists) {
      for (const Kept& k : list) std::free(k.data);
    }
  }
}

char* BufferPool::take_newest(std::vector<Kept>& list, int cpu, bool any_cpu) {
  const size_t n = list.size();
  for (size_t i = n; i > 0 && i + kCpuSearch > n; --i) {
    if (cpu >= 0 && list[i - 1].cpu == cpu) {
      char* data = list[i - 1].data;
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i - 1));
      return data;
    }
  }
  if (!any_cpu || n == 0) return nullptr;
  char* data = list.back().data;
  list.pop_back();
  return data;
}

char* BufferPool::take_oldest(std::vector<Kept>& list, int cpu, bool any_cpu) {
  auto it = std::find_if(list.begin(), list.end(), [cpu](const Kept& k) { return k.cpu == cpu; });
  if (it == list.end() || cpu < 0) {
    if (!any_cpu || list.empty()) return nullptr;
    it = list.begin();
  }
  char* data = it->data;
  list.erase(it);
  return data;
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
  const int cpu = current_cpu_();
  {
    std::lock_guard lock(mu_);
    b.pool_ = this;
    // Huge: a new one while fewer than kHugeRotation exist, then the oldest kept by this CPU, then
    // a new one while fewer than kMaxHugeBuffers exist, then the oldest kept by another CPU.
    // Otherwise an ordinary one: the newest kept (this CPU's first) or a new one.
    const bool may_make_huge = b.capacity_ >= kHugeFromBytes && huge_buffers_ < kMaxHugeBuffers;
    // Rotation only where kHugeRotation of them take at most half the cap: a new buffer freed
    // again at once, over the cap, would be made afresh at every request.
    const bool rotates =
        kHugeRotation * huge_allocation_bytes(b.capacity_) <= max_cached_bytes_ / 2;
    const bool reuse_huge = !may_make_huge || !rotates || huge_buffers_ >= kHugeRotation;
    char* kept = reuse_huge ? take_oldest(free_huge_[c], cpu, !may_make_huge) : nullptr;
    if (kept != nullptr) {
      b.data_ = kept;
      cached_bytes_ -= huge_allocation_bytes(b.capacity_);
      b.huge_ = true;
      return b;
    }
    b.huge_ = may_make_huge;
    if (!b.huge_) {
      if (char* kept_ordinary = take_newest(free_[c], cpu, true)) {
        b.data_ = kept_ordinary;
        cached_bytes_ -= b.capacity_;
        return b;
      }
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
  const int cpu = current_cpu_();
  {
    std::lock_guard lock(mu_);
    const size_t bytes = huge ? huge_allocation_bytes(capacity) : capacity;
    if (cached_bytes_ + bytes <= max_cached_bytes_) {
      (huge ? free_huge_ : free_)[class_of(capacity)].push_back(Kept{data, cpu});
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
