// CPU time of the whole rawio process (all its threads), from getrusage(RUSAGE_SELF).
#pragma once

#include <cstdint>

namespace diskcond::rawio {

struct CpuTimes {
  int64_t user_ns = 0;
  int64_t sys_ns = 0;
};

// Now, for this process: user and system time of all threads so far.
CpuTimes process_cpu_times();

inline CpuTimes operator-(const CpuTimes& a, const CpuTimes& b) {
  return {a.user_ns - b.user_ns, a.sys_ns - b.sys_ns};
}

// Percent of one CPU over `elapsed_ns` (can exceed 100 with several workers). 0 if elapsed is 0.
double cpu_percent(int64_t cpu_ns, int64_t elapsed_ns);

}  // namespace diskcond::rawio
