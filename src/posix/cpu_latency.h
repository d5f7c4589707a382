// The kernel's CPU latency request (PM QoS, /dev/cpu_dma_latency; the kernel's
// Documentation/power/pm_qos_interface.rst): while a process holds the device open with a value
// written to it, no CPU enters an idle state that takes longer than that many microseconds to
// leave. At 0 an idle CPU polls (cpuidle's POLL state) instead of halting, so a thread woken on
// it runs within a few microseconds (where a cpuidle driver is present: cpuidle_driver_present);
// closing the descriptor withdraws the request. Root only on most systems (the device is mode
// 0600).
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

// Where the kernel names the cpuidle driver in use ("none" when there is none).
inline constexpr const char* kCpuidleDriverFile = "/sys/devices/system/cpu/cpuidle/current_driver";

// Whether a cpuidle driver manages the idle CPUs. Without one (`driver_file` reads "none", or
// does not exist) the idle loop halts an idle CPU directly and no latency request changes that:
// on a 2-core VM with no driver (2026-12-04), fio 4 KiB QD1 reads on a Slow SSD mount made 6656
// and 7158 IOPS with a request of 0 held, 6961 and 7205 without.
bool cpuidle_driver_present(const char* driver_file = kCpuidleDriverFile);

// request_cpu_latency(0) where it makes idle CPUs poll: -ENODEV when no cpuidle driver is
// present (`driver_file`, as above), which would leave them halting whatever was asked.
int request_idle_polling(const char* driver_file = kCpuidleDriverFile);

}  // namespace diskcond::posix
