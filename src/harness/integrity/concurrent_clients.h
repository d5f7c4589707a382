// Several OpEngine clients at once in one directory, one thread each. Client c owns the names
// "c<c>_0", "c<c>_1", ... and runs with seed `seed + c`, so any client's run is reproducible on
// its own with the same options. Worker threads never throw; results come back as values.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/integrity/op_engine.h"

namespace diskcond::harness::integrity {

struct ClientsOptions {
  EngineOptions engine;  // dir, slots, mmap_writes, direct_io, ...; prefix and seed are set
  size_t clients = 4;    // per client from `seed` below
  uint64_t seed = 1;
  uint64_t total_ops = 4000;  // split evenly over the clients
};

struct ClientsRun {
  std::vector<std::unique_ptr<OpEngine>> engines;  // kept for the final verification
  std::vector<EngineReport> reports;
  uint64_t steps() const;
  bool direct_refused() const;
  std::vector<Mismatch> mismatches() const;  // the first of each client that had one
};

// Runs all clients to completion (each stops early at its first mismatch).
ClientsRun run_clients(const ClientsOptions& options);

// Every client's verify_all(root); empty when everything under `root` matches the models.
std::vector<Mismatch> verify_clients(const ClientsRun& run, const std::string& root);

}  // namespace diskcond::harness::integrity
