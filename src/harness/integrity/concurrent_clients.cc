#include "harness/integrity/concurrent_clients.h"

#include <thread>

namespace diskcond::harness::integrity {

uint64_t ClientsRun::steps() const {
  uint64_t n = 0;
  for (const auto& r : reports) n += r.steps_done;
  return n;
}

bool ClientsRun::direct_refused() const {
  for (const auto& r : reports) {
    if (r.direct_refused) return true;
  }
  return false;
}

std::vector<Mismatch> ClientsRun::mismatches() const {
  std::vector<Mismatch> out;
  for (const auto& r : reports) {
    if (r.mismatch) out.push_back(*r.mismatch);
  }
  return out;
}

ClientsRun run_clients(const ClientsOptions& options) {
  ClientsRun run;
  run.reports.resize(options.clients);
  for (size_t c = 0; c < options.clients; ++c) {
    EngineOptions e = options.engine;
    e.prefix = "c" + std::to_string(c) + "_";
    e.seed = options.seed + c;
    e.ops = options.total_ops / options.clients;
    run.engines.push_back(std::make_unique<OpEngine>(std::move(e)));
  }
  std::vector<std::thread> threads;
  for (size_t c = 0; c < options.clients; ++c) {
    threads.emplace_back([&run, c] { run.reports[c] = run.engines[c]->run(); });
  }
  for (auto& t : threads) t.join();
  return run;
}

std::vector<Mismatch> verify_clients(const ClientsRun& run, const std::string& root) {
  std::vector<Mismatch> out;
  for (const auto& e : run.engines) {
    if (auto m = e->verify_all(root)) out.push_back(*m);
  }
  return out;
}

}  // namespace diskcond::harness::integrity
