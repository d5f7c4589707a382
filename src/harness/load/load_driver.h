// A seeded mixed workload from many concurrent clients in one directory, for load-testing a
// conditioned mount (bench/load_test.sh, mount_load_test.cc).
//
// Client c (one thread, its own descriptors) owns the data file "load-<c>" (file_bytes long) and
// the names "load-<c>-t<n>". Each step picks an operation by weight: random 4/16 KiB reads and
// writes, sequential 64 KiB/1 MiB reads and writes (a cursor per client), fsync, and
// create+write+stat+unlink of a small file. Odd clients do their data I/O with O_DIRECT (falling
// back to buffered if the mount refuses it), even clients buffered. Every 4 KiB block written
// carries (client, block, version) and every read is checked against what the client last wrote
// there, so a lost or torn write shows up as a data error. A client's sequence of operations
// depends only on the seed (how far it gets depends on timing). Each client fills its own
// histograms (no shared lock on the hot path); the driver merges them after all have stopped.
// Clients never throw; failures come back counted, with the first few messages.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rawio/latency_histogram.h"

namespace diskcond::harness::load {

// kFinalCheck: the whole-file read-back after the timed run (not part of the mix).
enum class LoadOp {
  kRandomRead,
  kRandomWrite,
  kSequentialRead,
  kSequentialWrite,
  kFsync,
  kMetadata,
  kFinalCheck
};
constexpr size_t kLoadOpCount = 7;
const char* load_op_name(LoadOp op);

struct LoadOptions {
  std::string dir;  // REQUIRES: an existing directory
  size_t clients = 16;
  double seconds = 3;
  uint64_t seed = 1;              // client c uses seed + c
  uint64_t file_bytes = 8 << 20;  // per client; a multiple of 1 MiB
  bool direct_io = true;          // odd clients use O_DIRECT
  bool keep_files = false;        // leave the data files behind (to check them after stop)
};

struct OpStats {
  rawio::LatencyHistogram latency;  // successful operations only
  uint64_t errors = 0;
  uint64_t bytes = 0;
};

struct LoadReport {
  std::array<OpStats, kLoadOpCount> ops;
  rawio::LatencyHistogram all;                  // every successful operation of the timed run
  uint64_t errors = 0;                          // operations that failed (errno, short transfer)
  uint64_t data_errors = 0;                     // reads that returned other bytes than were written
  uint64_t direct_clients = 0;                  // clients that really used O_DIRECT
  std::vector<std::string> first_errors;        // at most 10 messages
  std::vector<std::vector<uint32_t>> versions;  // per client, per 4 KiB block: last version
  double elapsed_s = 0;
  uint64_t operations() const { return all.count(); }
};

// Runs all clients for options.seconds, then checks every client's whole file once more and
// removes its files unless keep_files.
LoadReport run_load(const LoadOptions& options);

// Compares client `client`'s data file under `dir` with `versions` (LoadReport::versions of a run
// with keep_files; usable on the backing directory after the mount is stopped). Returns how many
// 4 KiB blocks differ (a block whose last write failed matches any well-formed content), or -1
// when the file cannot be read.
int64_t check_client_file(const std::string& dir, size_t client,
                          const std::vector<uint32_t>& versions);

}  // namespace diskcond::harness::load
