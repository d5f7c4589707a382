// The daemon's environment knobs (DISKCOND_*), read once when it starts.
//
// Each knob exists to measure what one part of the daemon changes (docs/conditioner.md names the
// measurement) or, for DISKCOND_INODE_FD_BUDGET, to let tests exercise a path; the defaults are
// the measured choices. A knob is on unless set to exactly "off" (or, for the opt-in ones, off
// unless set to exactly "1"); any other value keeps the default, so a typo never changes the
// mount's timing silently in the direction of "off".
#pragma once

#include <cstddef>
#include <cstdlib>
#include <functional>

#include "dmc/mount/worker_loop.h"

namespace diskcond::mount {

struct DaemonKnobs {
  using Getenv = std::function<const char*(const char*)>;

  bool idle_poll = true;       // DISKCOND_IDLE_POLL=off: idle CPUs halt as the machine decides
  bool reply_cpu = true;       // DISKCOND_REPLY_CPU=off: replies that wait go from any CPU
  bool transit_lead = true;    // DISKCOND_TRANSIT_LEAD=off: no lead (and no probe)
  bool copy_lead = true;       // DISKCOND_COPY_LEAD=off: no lead for copying data
  bool killpriv_v2 = true;     // DISKCOND_KILLPRIV_V2=off: the kernel's getxattr before writes
  bool kernel_arrival = true;  // DISKCOND_KERNEL_ARRIVAL=off: arrival at the workers' reads
  bool send_order = true;      // DISKCOND_SEND_ORDER=off: data reach the model as workers go
  bool huge_receive = true;    // DISKCOND_HUGE_RECEIVE=off: workers' buffers of ordinary pages
  bool park_spares = true;     // DISKCOND_PARK_SPARES=off: every worker waits in its read
  bool receive_cpu = true;     // DISKCOND_RECEIVE_CPU=off: a core worker keeps one buffer
  bool worker_spin = true;     // DISKCOND_WORKER_SPIN=off: short waits go to a reply thread too
  bool worker_cpus = true;     // DISKCOND_WORKER_CPUS=off: workers on every CPU, deep queues too
  bool splice_replies = true;  // DISKCOND_SPLICE_REPLIES=off: reads' data copied in by pread
  bool fuse_uring = false;     // DISKCOND_FUSE_URING=1: FUSE over io_uring where offered
  bool clone_fd = false;       // DISKCOND_FUSE_CLONE_FD=1: a /dev/fuse descriptor per worker
  bool fuse_splice = false;    // DISKCOND_FUSE_SPLICE=1: write requests' data through a pipe
  unsigned workers = 0;        // DISKCOND_FUSE_WORKERS=N (N > 0): at most N workers; 0: default
  size_t inode_fd_budget = 0;  // DISKCOND_INODE_FD_BUDGET=N: tests' descriptor budget; 0: default
  // Read requests of at most this many bytes (the mount option max_read): a larger O_DIRECT read
  // reaches the daemon as pieces sent together, whose copies and pinning overlap the model's time
  // (docs/conditioner.md "Reads in pieces"). DISKCOND_MAX_READ=N (N > 0) sets N; =off: 0, the
  // kernel's own limit (1 MiB here, the daemon's max_pages).
  unsigned max_read = kDefaultMaxRead;
  static constexpr unsigned kDefaultMaxRead = 256 * 1024;
  // Write requests of at most this many bytes (the INIT reply's max_write, never above the
  // workers' receive buffers): a larger O_DIRECT write reaches the daemon as pieces sent together,
  // whose copies into the daemon and backing writes overlap on the workers (docs/conditioner.md
  // "Writes in pieces"). DISKCOND_MAX_WRITE=N (N > 0) sets N (at least 4096 in force: the
  // kernel's least); =off: 0, the daemon's own limit (1 MiB, kMaxWriteBytes).
  unsigned max_write = kDefaultMaxWrite;
  static constexpr unsigned kDefaultMaxWrite = 256 * 1024;

  // The knobs as `getenv` (the process environment by default) has them.
  static DaemonKnobs from_environment(const Getenv& getenv = ::getenv);
  // The worker loop's settings by these knobs, for at most `max_workers` workers.
  WorkerLoopConfig worker_loop(unsigned max_workers) const;

  bool operator==(const DaemonKnobs&) const = default;
};

}  // namespace diskcond::mount
