// Honesty checks: what a result does not mean, said next to it. Pure: from facts about the target
// gathered before (O_DIRECT refused or turned off, its interface's limit) and the results.
#pragma once

#include <string>
#include <vector>

#include "rawio/interface_limit.h"
#include "rawio/run_result.h"

namespace diskcond::rawio {

struct TargetFacts {
  bool block_device = false;
  bool direct = true;           // O_DIRECT was used
  bool direct_refused = false;  // O_DIRECT was asked for (auto) and the file system refused it
  bool null_engine = false;     // no I/O at all: nothing to say about the storage's figures
  InterfaceLimit limit;
};

// A result above this on a file or directory target with no known link is memory bandwidth:
// more than any single storage link of today carries (PCIe 5.0 x4 is 15.75 GB/s).
inline constexpr double kMemoryLikeBytesPerSec = 20e9;
// A rotating disk seeks at most a few hundred times a second; random transfers far above that
// came from a cache (or from an array of disks).
inline constexpr double kRotatingRandomPerSec = 1000;

// The cautions for one target's results, in a fixed order: page_cache (O_DIRECT refused),
// buffered (--direct=off), memory_backed, then per test exceeds_interface, rotating_random and
// memory_speed.
std::vector<Caution> honesty_cautions(const TargetFacts& facts, const TargetReport& report);

}  // namespace diskcond::rawio
