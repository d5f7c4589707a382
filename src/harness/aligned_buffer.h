// A heap buffer aligned for O_DIRECT I/O (4 KiB, rounded-up size). Move-only.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace diskcond::harness {

constexpr size_t kDirectAlign = 4096;

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // data() is nullptr when the allocation failed.
  explicit AlignedBuffer(size_t size) : size_(size) {
    void* p = nullptr;
    const size_t rounded = (size + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
    if (posix_memalign(&p, kDirectAlign, rounded == 0 ? kDirectAlign : rounded) == 0) {
      data_.reset(static_cast<char*>(p));
    }
  }
  char* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data_;
  size_t size_ = 0;
};

}  // namespace diskcond::harness
