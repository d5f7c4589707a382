// What any device of a given service time costs a caller that sleeps while it waits, on this
// machine (dmc/ideal_device.h), for bench/suite.sh and by hand:
//
//   build/ideal_device SERVICE_US COUNT [BYTES] [idle-poll]
//
// prints "service S us, caller sleeps: min A p50 B p90 C mean D us" (", pinning P us of it" when
// BYTES, the size of each request's data, is given and not 0: the caller pins a buffer of that
// size first, as the kernel pins an O_DIRECT caller's; ", idle CPUs polled" when `idle-poll`
// asked for it and it was granted: root; a conditioned mount does so while traffic flows,
// mount/idle_poll.h). SERVICE_US may be fractional. docs/benchmarks.md has what it measured
// on the 2-core VM (there as bench/wake/sleeping_caller.c, the same loop in C, which it replaced).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "dmc/ideal_device.h"

namespace {

// A whole number of bytes, or -1.
long long parse_bytes(const char* text) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  return errno == 0 && end != text && *end == '\0' && value >= 0 ? value : -1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool idle_poll = argc >= 4 && std::string_view(argv[argc - 1]) == "idle-poll";
  const int positional = argc - (idle_poll ? 1 : 0);
  const bool args_ok = positional == 3 || positional == 4;
  const double service_us = args_ok ? std::atof(argv[1]) : 0;
  const long count = args_ok ? std::atol(argv[2]) : 0;
  const long long bytes = args_ok && positional == 4 ? parse_bytes(argv[3]) : 0;
  if (service_us <= 0 || count <= 0 || bytes < 0) {
    std::fprintf(stderr, "usage: ideal_device SERVICE_US COUNT [BYTES] [idle-poll]\n");
    return 2;
  }
  auto run = diskcond::dmc::run_ideal_device(static_cast<int64_t>(service_us * 1000),
                                             static_cast<uint64_t>(count), idle_poll,
                                             static_cast<uint64_t>(bytes));
  if (!run.ok()) {
    std::fprintf(stderr, "ideal_device: %s\n", run.error().c_str());
    return 1;
  }
  std::printf("service %.1f us, caller sleeps: min %.1f p50 %.1f p90 %.1f mean %.1f us", service_us,
              run->min_wait_ns / 1e3, run->p50_wait_ns / 1e3, run->p90_wait_ns / 1e3,
              run->mean_wait_ns / 1e3);
  if (run->pinned_bytes > 0) std::printf(", pinning %.1f us of it", run->mean_pin_ns / 1e3);
  std::printf("%s\n", run->idle_poll_held ? ", idle CPUs polled" : "");
  return 0;
}
