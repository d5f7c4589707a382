// dmc verify: measures a directory with rawio's engine and compares each standard workload with
// what the disk model predicts for the profile. Prints nothing; the CLI formats the checks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/predict.h"
#include "core/profile.h"
#include "core/result.h"
#include "dmc/predict_report.h"

namespace diskcond {

struct VerifyPlan {
  std::vector<NamedWorkload> workloads = standard_workloads();
  // Each workload runs at least this long, warm-up included. REQUIRES: more than warmup_ns.
  int64_t seconds_per_test_ns = 4'000'000'000;
  // What completes in the first part of each workload (the first seek, queues filling) is not
  // counted; the rate is the transfers after it over the time they took (rawio's --warmup).
  int64_t warmup_ns = 1'000'000'000;
  // A workload runs longer, up to max_seconds_per_test_ns, until the prediction holds this many
  // transfers in the measured time: one transfer more or less is then a tenth of the tolerance
  // (at 55 IOPS, one second's 55 transfers made a transfer 1.8% of the result, against 5%).
  uint64_t min_transfers = 200;
  int64_t max_seconds_per_test_ns = 30'000'000'000;
  double tolerance = 0.05;            // |measured / predicted - 1| allowed
  // The test file made in the directory (and removed). For HDD profiles it grows so that a
  // sequential pass never wraps within a test (a wrap is a seek the prediction does not have).
  uint64_t min_file_bytes = 64ull << 20;
  uint64_t max_file_bytes = 1ull << 30;
};

// The test file size verify uses for `profile` under `plan`.
uint64_t verify_file_bytes(const Profile& profile, const VerifyPlan& plan);

enum class Verdict {
  kPass,   // within the tolerance of the prediction (or nothing predicted)
  kFail,   // outside it, and the mount could have done it
  kFloor,  // below the prediction, which is above what the mount delivers with conditioning off
           // on this machine (its floor): the profile asks for more than the machine can give
};

struct VerifyCheck {
  std::string label;
  Workload workload;       // as run (queue depth resolved, span of the test file)
  Prediction predicted;    // infinite when the profile sets no limit for it
  double measured_iops = 0;  // transfers after the warm-up over the time they took (fractional)
  double measured_bytes_per_sec = 0;
  double measured_seconds = 0;  // the time those transfers took
  double error = 0;        // measured / predicted - 1 (0 when the prediction is unlimited)
  // The mount's floor for this workload, measured with conditioning off; 0 when not measured
  // (the workload did not fall short, or verify could not switch conditioning off).
  double floor_iops = 0;
  double floor_bytes_per_sec = 0;
  Verdict verdict = Verdict::kFail;
  bool pass = false;       // verdict != kFail: nothing the mount is to blame for
};

// The verdict for `measured_iops` against `predicted_iops` (infinite: nothing predicted) and,
// when measured (> 0), the mount's floor: below the prediction by more than `tolerance` is kFloor
// when the prediction is above the floor, else kFail.
Verdict judge(double predicted_iops, double measured_iops, double floor_iops, double tolerance);

// How long verify runs a workload predicted to do `predicted_iops` (infinite: no limit): the
// plan's time, or longer, up to its maximum, for min_transfers after the warm-up.
int64_t verify_test_ns(double predicted_iops, const VerifyPlan& plan);

// Turns the mount's conditioning off (true) or back to its settings (false), for measuring its
// floor. Errors are one line.
using ConditioningSwitch = std::function<Status(bool off)>;

// Runs every workload of `plan` on a test file in `dir` with O_DIRECT (psync at queue depth 1,
// io_uring above), one worker, and checks each steady-state figure (after the warm-up second)
// against predict(profile, workload) for random offsets within the file's share of
// `capacity_bytes` (the mount's device address space).
// `on_test` is called before each workload with its label. With `unconditioned`, a workload
// that falls short of its prediction is run again with conditioning off (the mount's floor), and
// conditioning is switched back on before the next workload, error or not. Errors: the directory
// cannot hold the test file, O_DIRECT unsupported, an I/O error, switching conditioning failed
// (one line each).
Result<std::vector<VerifyCheck>> verify_directory(const std::string& dir, const Profile& profile,
                                                  uint64_t capacity_bytes, const VerifyPlan& plan,
                                                  const std::function<void(const std::string&)>& on_test,
                                                  const ConditioningSwitch& unconditioned = nullptr);

}  // namespace diskcond
