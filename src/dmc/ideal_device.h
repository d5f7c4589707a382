// What any device costs a caller that sleeps while it waits, on this machine: an "ideal device"
// of a given service time, with no FUSE, no disk model and no disk.
//
// A device thread completes each request exactly `service_ns` after it was issued (it spins, so
// its own timing is exact) and wakes the caller, which sleeps in a futex wait meanwhile, as a
// caller of pread() sleeps while a real device serves it. The caller's wait, issue to wake-up,
// is the service time plus what waking it costs here. On a VM whose idle vCPUs halt (the guest's
// haltpoll driver with guest_halt_poll_ns 0) that is 40-60 us for a 116 us service, so no device
// of the Slow SSD's speed delivers its 8,649 4 KiB reads a second to such a caller there
// (docs/benchmarks.md). verify measures it for a queue-depth-1 workload that falls short; the
// accuracy suite runs it as build/ideal_device (bench/ideal_device_main.cc).
//
// Before a device sees an O_DIRECT read or write, the kernel pins the caller's buffer, page by
// page (a FUSE request and a block device's bio alike): for 1 MiB of 4 KiB pages 12 us of the 16
// us from a read's entry to its FUSE request's send on the 2-core VM (3.8 us into a huge page;
// docs/benchmarks.md, 2026-12-07). So the ideal device's caller, asked to, first pins a buffer of
// the request's size, by vmsplice(2) of it into a pipe, which takes a reference to each page as
// direct I/O does (10.4-11.6 us for 1 MiB of 4 KiB pages here, huge pages or not: less than the
// kernel's 12 us for a FUSE read's, so the device stays at least as fast as a real one). That
// counts in the wait; emptying the pipe, which a real device's completion does in its own time,
// does not.
#pragma once

#include <cstdint>

#include "core/result.h"

namespace diskcond::dmc {

struct IdealDeviceRun {
  int64_t service_ns = 0;
  uint64_t requests = 0;
  uint64_t pinned_bytes = 0;  // the caller's buffer pinned before each request (0: none)
  double mean_pin_ns = 0;     // of the wait, pinning it (0 without)
  double mean_wait_ns = 0;    // the caller's mean wait: issue to its return from the wake-up
  int64_t min_wait_ns = 0;
  int64_t p50_wait_ns = 0;
  int64_t p90_wait_ns = 0;
  bool idle_poll_held = false;  // idle CPUs polled meanwhile (asked for, and granted)
  // What a caller at queue depth 1 gets from such a device here: 1e9 / mean_wait_ns.
  double iops() const { return mean_wait_ns > 0 ? 1e9 / mean_wait_ns : 0; }
};

// Runs `requests` requests of `service_ns` each, one at a time (REQUIRES: both > 0). Takes about
// requests x (service + wake-up) and one CPU spinning meanwhile. `idle_poll`: hold the kernel's
// CPU latency request at 0 us meanwhile (posix/cpu_latency.h), as a conditioned mount does while
// its traffic flows (mount/idle_poll.h); where this process may not (not root), the run goes
// without and says so (idle_poll_held false). `pinned_bytes`: the size of each request's data,
// whose buffer the caller pins first (above; 0: none). Errors: the device thread cannot be
// started, no pipe or buffer for the pinning.
Result<IdealDeviceRun> run_ideal_device(int64_t service_ns, uint64_t requests,
                                        bool idle_poll = false, uint64_t pinned_bytes = 0);

// How many requests run_ideal_device should serve to measure a service of `service_ns` in about
// `budget_ns`: at least 200 (the mean of fewer wanders with a single slow wake-up), at most
// 20,000.
uint64_t ideal_device_requests(int64_t service_ns, int64_t budget_ns);

}  // namespace diskcond::dmc
