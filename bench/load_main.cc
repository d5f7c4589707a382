// dmc-load: runs the load driver (src/harness/load) in a directory and prints its report as JSON.
// Used by bench/load_test.sh; not installed.
//   dmc-load <dir> [--clients N] [--seconds S] [--seed N] [--file-mib N] [--no-direct]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness/load/load_driver.h"

namespace {

nlohmann::ordered_json latency_json(const diskcond::rawio::LatencyHistogram& h) {
  return {{"count", h.count()},
          {"mean_ns", h.mean_ns()},
          {"p50_ns", h.percentile_ns(50)},
          {"p90_ns", h.percentile_ns(90)},
          {"p99_ns", h.percentile_ns(99)},
          {"p999_ns", h.percentile_ns(99.9)},
          {"max_ns", h.max_ns()}};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace diskcond::harness::load;
  LoadOptions o;
  uint64_t file_mib = 8;
  bool no_direct = false;
  CLI::App app{"dmc-load: a seeded mixed workload from many clients"};
  app.add_option("dir", o.dir, "directory to load")->required();
  app.add_option("-c,--clients", o.clients, "concurrent clients");
  app.add_option("-s,--seconds", o.seconds, "duration");
  app.add_option("--seed", o.seed, "seed (client c uses seed + c)");
  app.add_option("--file-mib", file_mib, "data file per client, MiB");
  app.add_flag("--no-direct", no_direct, "no O_DIRECT clients");
  CLI11_PARSE(app, argc, argv);
  o.file_bytes = file_mib << 20;
  o.direct_io = !no_direct;
  const LoadReport r = run_load(o);
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (size_t i = 0; i < kLoadOpCount; ++i) {
    auto j = latency_json(r.ops[i].latency);
    j["errors"] = r.ops[i].errors;
    j["bytes"] = r.ops[i].bytes;
    ops[load_op_name(static_cast<LoadOp>(i))] = j;
  }
  nlohmann::ordered_json out = {{"clients", o.clients},
                                {"seconds", o.seconds},
                                {"elapsed_s", r.elapsed_s},
                                {"operations", r.operations()},
                                {"errors", r.errors},
                                {"data_errors", r.data_errors},
                                {"direct_clients", r.direct_clients},
                                {"latency", latency_json(r.all)},
                                {"ops", ops},
                                {"first_errors", r.first_errors}};
  std::printf("%s\n", out.dump(2).c_str());
  return r.errors == 0 && r.data_errors == 0 ? 0 : 1;
}
