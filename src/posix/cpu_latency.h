// The kernel's CPU latency request (PM QoS, /dev/cpu_dma_latency; the kernel's
// Documentation/power/pm_qos_interface.rst): while a process holds the device open with a value
// written to it, no CPU enters an idle state that takes longer than that many microseconds to
// leave. At 0 an idle CPU polls (cpuidle's POLL state) instead of halting, so a thread woken on
// it runs within a few microseconds; closing the descriptor withdraws the request. Root only on
// most systems (the device is mode 0600).
//
// Measured on the 2-core VM (haltpoll cpuidle driver, guest_halt_poll_ns 0), an ideal device of
// 115.6 us whose caller sleeps (dmc/ideal_device.h): caller's wait p50 166.9 us without a
// request, 119.0 us with one of 0 (2026-12-02 11:06 UTC, load 0.7).
#pragma once

#include <cstdint>

#include "posix/unique_fd.h"

namespace diskcond::posix {

inline constexpr const char* kCpuLatencyDevice = "/dev/cpu_dma_latency";

// Opens the device and asks that no CPU take longer than `max_latency_us` to wake. The request
// holds while the returned descriptor is open. The descriptor, or -errno.
int request_cpu_latency(int32_t max_latency_us);

// The limit all requests together set now (the smallest), in us; 2,000,000,000 when none holds.
// Reading adds no limit of its own. The limit, or -errno.
int64_t current_cpu_latency_limit_us();

}  // namespace diskcond::posix
