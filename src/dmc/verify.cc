#include "dmc/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/units.h"

#include "rawio/runner.h"
#include "rawio/target.h"

namespace diskcond {
namespace {

rawio::TestKind test_kind(const Workload& w) {
  const bool random = w.pattern == Pattern::kRandom;
  if (w.direction == Op::kRead) return random ? rawio::TestKind::kRandomRead : rawio::TestKind::kSequentialRead;
  return random ? rawio::TestKind::kRandomWrite : rawio::TestKind::kSequentialWrite;
}

// Transfers and bytes per second over the whole seconds after the first (warm-up) second and
// before the time limit: the last interval also holds what completed after the limit (the queue
// draining), so it is left out. Falls back to the whole run when it was shorter.
std::pair<double, double> steady_rates(const rawio::RunResult& r) {
  const size_t full_seconds = static_cast<size_t>(
      std::min(r.elapsed_ns, r.spec.time_limit_ns) / rawio::IntervalLog::kIntervalNs);
  uint64_t transfers = 0, bytes = 0;
  size_t seconds = 0;
  for (size_t i = 1; i < full_seconds && i < r.intervals.size(); ++i, ++seconds) {
    transfers += r.intervals[i].transfers;
    bytes += r.intervals[i].bytes;
  }
  if (seconds == 0) return {r.transfers_per_sec(), r.bytes_per_sec()};
  return {static_cast<double>(transfers) / seconds, static_cast<double>(bytes) / seconds};
}

VerifyCheck check(const std::string& label, const Workload& w, const Profile& profile,
                  const rawio::RunResult& measured, double tolerance) {
  VerifyCheck c;
  c.label = label;
  c.workload = w;
  c.predicted = predict(profile, w);
  std::tie(c.measured_iops, c.measured_bytes_per_sec) = steady_rates(measured);
  if (std::isinf(c.predicted.iops)) {
    c.pass = true;  // nothing to hold the mount to
  } else {
    c.error = c.measured_iops / c.predicted.iops - 1;
    c.pass = std::fabs(c.error) <= tolerance;
  }
  return c;
}

}  // namespace

uint64_t verify_file_bytes(const Profile& profile, const VerifyPlan& plan) {
  uint64_t bytes = plan.min_file_bytes;
  if (profile.type == DiskType::kHDD) {
    const double seconds = static_cast<double>(plan.seconds_per_test_ns) / 1e9;
    const uint64_t rate = std::max(profile.read_bytes_per_sec, profile.write_bytes_per_sec);
    if (rate == 0) return plan.max_file_bytes;
    bytes = std::max(bytes, static_cast<uint64_t>(static_cast<double>(rate) * seconds * 1.1));
  }
  bytes = std::min(bytes, plan.max_file_bytes);
  return bytes / kMiB * kMiB;  // whole 1 MiB transfers
}

Result<std::vector<VerifyCheck>> verify_directory(const std::string& dir, const Profile& profile,
                                                  uint64_t capacity_bytes, const VerifyPlan& plan,
                                                  const std::function<void(const std::string&)>& on_test) {
  auto target = rawio::inspect_target(dir);
  if (!target.ok()) return make_error(target.error());
  if (target->kind != rawio::TargetKind::kDirectory) return make_error(fmt::format("{} is not a directory", dir));
  const uint64_t file_bytes = verify_file_bytes(profile, plan);
  if (Status s = rawio::create_test_file(*target, file_bytes); !s.ok()) return make_error(s.error());
  // Removes the test file on every return below.
  std::unique_ptr<rawio::Target, void (*)(rawio::Target*)> cleanup(&*target, [](rawio::Target* t) {
    rawio::remove_test_file(*t);
  });
  std::string warning;
  if (Status s = rawio::choose_direct_io(*target, rawio::DirectMode::kOn, &warning); !s.ok()) {
    return make_error(s.error());
  }

  std::vector<VerifyCheck> checks;
  for (const NamedWorkload& named : plan.workloads) {
    Workload w = resolve(named.workload, profile);
    w.span_fraction = std::min(1.0, static_cast<double>(file_bytes) / static_cast<double>(capacity_bytes));
    if (on_test) on_test(named.label);
    rawio::TestSpec spec;
    spec.kind = test_kind(w);
    spec.transfer_bytes = static_cast<uint32_t>(w.block_bytes);
    spec.workers = 1;
    spec.iodepth = w.queue_depth;
    spec.area_bytes = file_bytes;
    spec.transfer_count = UINT64_MAX / 2;
    spec.time_limit_ns = plan.seconds_per_test_ns;
    rawio::RunOptions options;
    options.engine = w.queue_depth > 1 ? "io_uring" : "psync";
    auto result = rawio::run_test(*target, spec, options);
    if (!result.ok()) return make_error(fmt::format("{}: {}", named.label, result.error()));
    checks.push_back(check(named.label, w, profile, *result, plan.tolerance));
  }
  return checks;
}

}  // namespace diskcond
