// Reusable 4 KiB-aligned data buffers for the read and write paths.
//
// A request needs a buffer of up to 1 MiB from the moment its backing I/O starts until its reply
// is sent. Allocating each one afresh cost more than the copy itself: glibc serves sizes above
// 128 KiB with a new mmap, faulted in page by page and unmapped after the reply. The pool keeps
// freed buffers, by power-of-two size class, up to `max_cached_bytes` in all, so that memory
// stays bounded while steady traffic stops allocating.
//
// Buffers of 1 MiB and more are whole 2 MiB transparent huge pages (madvise(MADV_HUGEPAGE), which
// the kernel's default THP mode "madvise" honours), up to kMaxHugeBuffers of them at once: a
// read's reply is copied out of its buffer by the kernel one 4 KiB page at a time, each page
// pinned first (fuse_copy_fill), and 1 MiB replies on PCIe 3 SSD went from 70-80 to 60-70 us for
// most copies (docs/conditioner.md "Huge pages for the reply's buffer"). A 1 MiB buffer so takes
// 2 MiB, which is why their number is bounded: a shallow queue, whose replies' copies are on the
// caller's critical path, gets only huge buffers; a deep one (1 MiB QD64 x 2: 128 buffers) gets
// ordinary ones beyond the first few. The cap counts what was allocated.
//
// Where a buffer was last read matters to the next write into it: a backing pread of 1 MiB into a
// buffer whose reply another CPU had just copied out took 426-504 us on this project's 2-core VM
// at times (the host running its two vCPUs far apart), 84-120 us otherwise, against 55-69 us when
// the same CPU had, and mostly 47-66 us into one last used four requests earlier, whatever the CPU
// (docs/conditioner.md "Which buffer a read gets"). So kept buffers remember the CPU that gave
// them back (where the reply was copied), huge ones are used in turn, oldest first, at least
// kHugeRotation of them, and get() prefers one kept by its caller's CPU.
//
// Thread-safe: buffers are taken on FUSE workers and often given back on the reply thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace diskcond::mount {

// `bytes` of memory for request data, released with std::free. Huge: rounded up to whole 2 MiB
// pages, aligned to 2 MiB and advised MADV_HUGEPAGE (advice only: with THP "never" it works the
// same, a little slower); otherwise aligned to 4 KiB. nullptr when the allocation failed. Shared
// by the pool and the worker loop's receive buffers.
char* allocate_data_buffer(size_t bytes, bool huge);

class BufferPool {
 public:
  static constexpr size_t kMinClassBytes = 4096;              // also the alignment
  static constexpr size_t kMaxPooledBytes = size_t{4} << 20;  // larger buffers are not kept
  static constexpr size_t kHugeFromBytes = size_t{1} << 20;   // from here on, huge pages
  static constexpr size_t kHugePageBytes = size_t{2} << 20;
  static constexpr int kMaxHugeBuffers = 8;  // 16 MiB at most for 1 MiB buffers
  static constexpr int kHugeRotation = 4;    // made before any kept one is used again

  // The bytes allocated for a huge-page buffer of `capacity` (a power of two of at least
  // kHugeFromBytes); an ordinary buffer takes its capacity.
  static size_t huge_allocation_bytes(size_t capacity);

  // A buffer of at least size() bytes; goes back to its pool when destroyed. data() is nullptr
  // when the allocation failed.
  class Buffer {
   public:
    Buffer() = default;
    Buffer(Buffer&& other) noexcept { *this = std::move(other); }
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer();

    char* data() const { return data_; }
    size_t size() const { return size_; }
    bool huge() const { return huge_; }  // one or more whole transparent huge pages

   private:
    friend class BufferPool;
    BufferPool* pool_ = nullptr;
    char* data_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
    bool huge_ = false;
  };

  // The CPU the calling thread runs on (sched_getcpu by default; tests pass their own). A
  // negative value matches no kept buffer's CPU.
  using CurrentCpu = std::function<int()>;

  explicit BufferPool(size_t max_cached_bytes, CurrentCpu current_cpu = {});
  ~BufferPool();  // REQUIRES: every Buffer has been destroyed
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  Buffer get(size_t size);

  size_t cached_bytes() const;
  // Buffers allocated fresh so far (the rest were reused).
  uint64_t allocations() const;
  // Huge-page buffers in use or kept (at most kMaxHugeBuffers).
  int huge_buffers() const;

 private:
  static constexpr size_t kClasses = 11;  // 4 KiB .. 4 MiB
  // How many of a class's most recently kept buffers get() looks through for one of its CPU.
  static constexpr size_t kCpuSearch = 8;

  struct Kept {
    char* data;
    int cpu;  // the CPU that gave it back
  };
  // Takes the most recently kept buffer of `cpu` among the last kCpuSearch of `list`, or, when
  // `any_cpu`, the most recently kept one; nullptr when there is none.
  static char* take_newest(std::vector<Kept>& list, int cpu, bool any_cpu);
  // Takes the least recently kept buffer of `cpu`, or, when `any_cpu`, the least recently kept
  // one; nullptr when there is none.
  static char* take_oldest(std::vector<Kept>& list, int cpu, bool any_cpu);
  static size_t class_of(size_t capacity);
  void give_back(char* data, size_t capacity, bool huge);

  const size_t max_cached_bytes_;
  const CurrentCpu current_cpu_;
  mutable std::mutex mu_;
  std::array<std::vector<Kept>, kClasses> free_;       // guarded by mu_
  std::array<std::vector<Kept>, kClasses> free_huge_;  // guarded by mu_
  int huge_buffers_ = 0;                               // guarded by mu_
  size_t cached_bytes_ = 0;                            // guarded by mu_
  uint64_t allocations_ = 0;                           // guarded by mu_
};

}  // namespace diskcond::mount
