// Names the calling thread, so that `top -H`, `ps -L`, `perf` and /proc/<pid>/task/<tid>/comm tell
// a daemon's threads apart (a FUSE worker from a reply thread from the transit probe).
//
// The kernel keeps at most 15 bytes of a name (TASK_COMM_LEN less the terminating NUL): a longer
// one is cut there. Naming is a convenience, never a condition: failures are ignored.
#pragma once

#include <string>
#include <string_view>

namespace diskcond::posix {

inline constexpr size_t kMaxThreadNameBytes = 15;

// Names the calling thread `name`, cut to kMaxThreadNameBytes.
void name_this_thread(std::string_view name);

// The calling thread's name as the kernel has it; empty if it cannot be read.
std::string this_thread_name();

}  // namespace diskcond::posix
