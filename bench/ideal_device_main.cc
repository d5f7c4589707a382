// What any device of a given service time costs a caller that sleeps while it waits, on this
// machine (dmc/ideal_device.h), for bench/suite.sh and by hand:
//
//   build/ideal_device SERVICE_US COUNT [idle-poll]
//
// prints "service S us, caller sleeps: min A p50 B p90 C mean D us" (", idle CPUs polled" when
// `idle-poll` asked for it and it was granted: root; a conditioned mount does so while traffic
// flows, mount/idle_poll.h). SERVICE_US may be fractional. docs/benchmarks.md has what it measured
// on the 2-core VM (there as bench/wake/sleeping_caller.c, the same loop in C, which it replaced).
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "dmc/ideal_device.h"

int main(int argc, char** argv) {
  const bool args_ok = argc == 3 || (argc == 4 && std::string_view(argv[3]) == "idle-poll");
  const double service_us = args_ok ? std::atof(argv[1]) : 0;
  const long count = args_ok ? std::atol(argv[2]) : 0;
  if (service_us <= 0 || count <= 0) {
    std::fprintf(stderr, "usage: ideal_device SERVICE_US COUNT [idle-poll]\n");
    return 2;
  }
  auto run = diskcond::dmc::run_ideal_device(static_cast<int64_t>(service_us * 1000),
                                             static_cast<uint64_t>(count), argc == 4);
  if (!run.ok()) {
    std::fprintf(stderr, "ideal_device: %s\n", run.error().c_str());
    return 1;
  }
  std::printf("service %.1f us, caller sleeps: min %.1f p50 %.1f p90 %.1f mean %.1f us%s\n",
              service_us, run->min_wait_ns / 1e3, run->p50_wait_ns / 1e3, run->p90_wait_ns / 1e3,
              run->mean_wait_ns / 1e3, run->idle_poll_held ? ", idle CPUs polled" : "");
  return 0;
}
