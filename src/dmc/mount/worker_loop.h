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

namespace diskcond::mount {

struct WorkerLoopConfig {
  unsigned max_workers = 1;  // at least 1
  bool huge_buffers = true;  // DISKCOND_HUGE_RECEIVE=off: every buffer of ordinary pages
  bool park_spares = true;   // DISKCOND_PARK_SPARES=off: every worker waits in its read
};

// The largest write request's data the buffers hold; the INIT handler must keep the connection's
// max_write at or below it (libfuse 3.14's own value).
inline constexpr size_t kMaxWriteBytes = size_t{1} << 20;
// One receive buffer: libfuse 3.14's size (its headers' page above the largest data).
inline constexpr size_t kReceiveBufferBytes = kMaxWriteBytes + 4096;
inline constexpr unsigned kCoreWorkers = 4;  // never park; huge buffers unless huge_buffers is off
inline constexpr int kSpareReaders = 2;

// Runs `se`'s requests on up to config.max_workers threads until the session exits. Returns 0,
// or a negative errno: the first worker could not start, or a read of /dev/fuse failed otherwise
// than by the unmount (libfuse's loop returns the same). REQUIRES: `se` is mounted, without
// clone_fd or splice reads (libfuse's own loop serves those).
int run_worker_loop(fuse_session* se, const WorkerLoopConfig& config);

}  // namespace diskcond::mount
