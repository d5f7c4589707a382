// The FUSE session's workers: libfuse's multi-threaded loop (fuse_session_loop_mt), with receive
// buffers the daemon owns.
//
// libfuse 3.14 mallocs each worker's receive buffer (1 MiB + 4 KiB, ordinary 4 KiB pages). The
// kernel copies a write's data into it within the worker's read of /dev/fuse, pinning the buffer
// one 4 KiB page at a time (fuse_copy_fill), as it does a read's reply buffer on the way back
// (buffer_pool.h). Here the first kCoreWorkers workers' buffers are whole 2 MiB transparent huge
// pages (madvise(MADV_HUGEPAGE)); the rest are ordinary, so a deep queue of writes does not take
// 2 MiB per worker. Measured in docs/conditioner.md "Huge pages for the write's data".
//
// The core workers' buffers are shared, by CPU (ReceiveBuffers): before each read of /dev/fuse a
// core worker takes a buffer last used on the CPU it runs on. The kernel's copy of a write's data
// into a buffer whose lines the other CPU's cache holds (its last request ran there) took 500-600
// us for 1 MiB in this VM's slow periods against 100 us (docs/conditioner.md "Which buffer a
// write's data gets"); a worker woken for a request mostly runs where it slept.
//
// Workers are started as libfuse's loop starts them: one at first, another whenever a worker
// takes a request and none is left waiting for the next (forgets excepted), up to max_workers;
// none ends before the session does. Unlike libfuse's, the workers beyond the first
// kCoreWorkers (spares) park when they finish a request while kSpareReaders others wait for the
// next, and the one parked last is woken first where libfuse would start a worker. The kernel
// hands a request to the reader that has waited longest, so without parking a queue-depth-1
// caller after a deep queue went round every worker the deep queue had started (26 after fio
// 1 MiB QD32 reads, 64 after 4 KiB QD256), most of them with ordinary buffers and cold caches.
// When the session has exited (unmounted: every read fails with ENODEV; or fuse_session_exit, as
// a signal handler calls it) the workers still waiting in their read or parked are cancelled
// there, the only places cancellation is enabled, and all are joined.
#pragma once

#include <fuse_lowlevel.h>

#include <cstddef>
#include <mutex>
#include <vector>

namespace diskcond::mount {

struct WorkerLoopConfig {
  unsigned max_workers = 1;    // at least 1
  bool huge_buffers = true;    // DISKCOND_HUGE_RECEIVE=off: every buffer of ordinary pages
  bool park_spares = true;     // DISKCOND_PARK_SPARES=off: every worker waits in its read
  bool receive_by_cpu = true;  // DISKCOND_RECEIVE_CPU=off: each core worker keeps one buffer
};

// The largest write request's data the buffers hold; the INIT handler must keep the connection's
// max_write at or below it (libfuse 3.14's own value).
inline constexpr size_t kMaxWriteBytes = size_t{1} << 20;
// One receive buffer: libfuse 3.14's size (its headers' page above the largest data).
inline constexpr size_t kReceiveBufferBytes = kMaxWriteBytes + 4096;
inline constexpr unsigned kCoreWorkers = 4;  // never park; huge buffers unless huge_buffers is off
inline constexpr int kSpareReaders = 2;

// The core workers' receive buffers, each tagged with the CPU that last used it. Thread-safe.
class ReceiveBuffers {
 public:
  static constexpr size_t kMaxBuffers = 2 * kCoreWorkers;  // so each CPU of two has one per worker

  // `huge`: whole 2 MiB huge pages (above).
  explicit ReceiveBuffers(bool huge);
  ~ReceiveBuffers();
  ReceiveBuffers(const ReceiveBuffers&) = delete;
  ReceiveBuffers& operator=(const ReceiveBuffers&) = delete;

  // A buffer for a read on `cpu`: the one `cpu` gave back last; else a new one while fewer than
  // kMaxBuffers exist; else the one given back longest ago. Null only when a new one was needed
  // and could not be had (no memory). At most kMaxBuffers are taken at once (REQUIRES).
  void* take(int cpu);
  // Gives `buffer` back, last used on `cpu`.
  void give(void* buffer, int cpu);
  size_t made() const;

 private:
  struct Kept {
    void* data;
    int cpu;
  };
  const bool huge_;
  mutable std::mutex mu_;
  std::vector<Kept> free_;  // given back, the oldest first
  std::vector<void*> all_;  // every buffer made, freed at the end
};

// Runs `se`'s requests on up to config.max_workers threads until the session exits. Returns 0,
// or a negative errno: the first worker could not start, or a read of /dev/fuse failed otherwise
// than by the unmount (libfuse's loop returns the same). REQUIRES: `se` is mounted, without
// clone_fd or splice reads (libfuse's own loop serves those).
int run_worker_loop(fuse_session* se, const WorkerLoopConfig& config);

}  // namespace diskcond::mount
