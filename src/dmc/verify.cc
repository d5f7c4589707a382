#include "dmc/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "rawio/runner.h"
#include "rawio/target.h"

namespace diskcond {
namespace {

rawio::TestKind test_kind(const Workload& w) {
  const bool random = w.pattern == Pattern::kRandom;
  if (w.direction == Op::kRead) return random ? rawio::TestKind::kRandomRead : rawio::TestKind::kSequentialRead;
  return random ? rawio::TestKind::kRandomWrite : rawio::TestKind::kSequentialWrite;
}

VerifyCheck check(const std::string& label, const Workload& w, const Profile& profile,
                  const rawio::RunResult& measured, double tolerance) {
  VerifyCheck c;
  c.label = label;
  c.workload = w;
  c.predicted = predict(profile, w);
  c.measured_iops = measured.transfers_per_sec();
  c.measured_bytes_per_sec = measured.bytes_per_sec();
  if (std::isinf(c.predicted.iops)) {
    c.pass = true;  // nothing to hold the mount to
  } else {
    c.error = c.measured_iops / c.predicted.iops - 1;
    c.pass = std::fabs(c.error) <= tolerance;
  }
  return c;
}

}  // namespace

Result<std::vector<VerifyCheck>> verify_directory(const std::string& dir, const Profile& profile,
                                                  uint64_t capacity_bytes, const VerifyPlan& plan,
                                                  const std::function<void(const std::string&)>& on_test) {
  auto target = rawio::inspect_target(dir);
  if (!target.ok()) return make_error(target.error());
  if (target->kind != rawio::TargetKind::kDirectory) return make_error(fmt::format("{} is not a directory", dir));
  if (Status s = rawio::create_test_file(*target, plan.file_bytes); !s.ok()) return make_error(s.error());
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
    w.span_fraction = std::min(1.0, static_cast<double>(plan.file_bytes) / static_cast<double>(capacity_bytes));
    if (on_test) on_test(named.label);
    rawio::TestSpec spec;
    spec.kind = test_kind(w);
    spec.transfer_bytes = static_cast<uint32_t>(w.block_bytes);
    spec.workers = 1;
    spec.iodepth = w.queue_depth;
    spec.area_bytes = plan.file_bytes;
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
