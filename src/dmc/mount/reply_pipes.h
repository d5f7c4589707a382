// Pipes that carry a read's data from the backing file's page cache to its reply without a copy
// into the daemon (DISKCOND_SPLICE_REPLIES; docs/conditioner.md "Replies spliced from the page
// cache").
//
// A read served with pread costs a copy of its data from the backing file's page cache into a
// daemon buffer (about 19 us for 256 KiB on the project's 2-core VM), and the reply's writev then
// has the kernel pin that buffer a 4 KiB page at a time while it copies the data into the
// caller's pages. Spliced, the data's pages go into a pipe by reference (about 1.5 us for
// 256 KiB), and the reply moves them on to /dev/fuse, which copies them into the caller's pages
// without pinning anything: one copy of the data instead of two. A pipe holds at most
// /proc/sys/fs/pipe-max-size (1 MiB here) without CAP_SYS_RESOURCE, and libfuse's own reply pipe
// needs more than the data, so only reads of at most kMaxBytes are spliced: with reads in pieces
// of 256 KiB (the default) every piece of a larger read is. Reads below kMinBytes keep pread:
// their copy is short, and libfuse copies replies of less than two pages anyway.
//
// The pipe holds references to the backing file's pages until the reply: a write to the same
// range in between (a request sent while the read was outstanding) may show in the reply, as it
// may on a disk. Holes punched in the range meanwhile gave no error: 15,354 1 MiB O_DIRECT reads
// against 1,401 fallocate(PUNCH_HOLE)s and rewrites of the range in 8 s, PCIe 3 SSD (2026-12-07,
// docs/conditioner.md).
//
// Thread-safe: pipes are taken on FUSE workers and given back on the reply threads. At most
// kMaxPipes exist at once (two descriptors each); a read that finds none free is served by pread.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <mutex>
#include <vector>

namespace diskcond::mount {

class ReplyPipes {
 public:
  static constexpr size_t kMinBytes = 64 * 1024;   // smaller reads: pread (the copy is short)
  static constexpr size_t kMaxBytes = 512 * 1024;  // larger ones: pread (see above)
  static constexpr size_t kMaxPipes = 64;

  // A pipe holding one read's data, given back to its pool when destroyed; empty when the read
  // was not spliced (fill() says why).
  class Filled {
   public:
    Filled() = default;
    Filled(Filled&& other) noexcept;
    Filled& operator=(Filled&&) = delete;
    ~Filled();
    bool has_data() const { return pool_ != nullptr; }
    int read_fd() const { return fds_[0]; }
    size_t bytes() const { return bytes_; }

   private:
    friend class ReplyPipes;
    ReplyPipes* pool_ = nullptr;
    int fds_[2] = {-1, -1};
    size_t capacity_ = 0;
    size_t bytes_ = 0;
  };

  ReplyPipes() = default;
  ReplyPipes(const ReplyPipes&) = delete;
  ReplyPipes& operator=(const ReplyPipes&) = delete;
  ~ReplyPipes();

  // `size` bytes of `fd` from `offset` spliced into a pipe. *spliced false (and nothing taken
  // from the pool) when the read is not spliced: outside [kMinBytes, kMaxBytes], no pipe free or
  // none could be made or sized, or the file could not be spliced (then the caller preads).
  // Fewer bytes than `size` at the end of the file, as pread. REQUIRES: no fd is shared with a
  // reader of the pipe.
  Filled fill(int fd, off_t offset, size_t size, bool* spliced);

  size_t pipes_made() const;  // for tests and status: pipes that exist now

 private:
  struct Pipe {
    int fds[2];
    size_t capacity;
  };
  bool take(size_t capacity, Pipe* out);  // a pipe of at least `capacity` bytes
  void give_back(Pipe pipe, bool empty);

  mutable std::mutex mutex_;
  std::vector<Pipe> free_;
  size_t made_ = 0;
};

}  // namespace diskcond::mount
