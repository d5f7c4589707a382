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
  // Each workload runs this long; its first second is warm-up (the first seek, queues filling)
  // and the whole seconds after it are measured. REQUIRES: at least 2 s.
  int64_t seconds_per_test_ns = 4'000'000'000;
  double tolerance = 0.05;            // |measured / predicted - 1| allowed
  // The test file made in the directory (and removed). For HDD profiles it grows so that a
  // sequential pass never wraps within a test (a wrap is a seek the prediction does not have).
  uint64_t min_file_bytes = 64ull << 20;
  uint64_t max_file_bytes = 1ull << 30;
};

// The test file size verify uses for `profile` under `plan`.
uint64_t verify_file_bytes(const Profile& profile, const VerifyPlan& plan);

struct VerifyCheck {
  std::string label;
  Workload workload;       // as run (queue depth resolved, span of the test file)
  Prediction predicted;    // infinite when the profile sets no limit for it
  double measured_iops = 0;
  double measured_bytes_per_sec = 0;
  double error = 0;        // measured / predicted - 1 (0 when the prediction is unlimited)
  bool pass = false;
};

// Runs every workload of `plan` on a test file in `dir` with O_DIRECT (psync at queue depth 1,
// io_uring above), one worker, and checks each steady-state figure (after the warm-up second)
// against predict(profile, workload) for random offsets within the file's share of
// `capacity_bytes` (the mount's device address space).
// `on_test` is called before each workload with its label. Errors: the directory cannot hold
// the test file, O_DIRECT unsupported, an I/O error (one line each).
Result<std::vector<VerifyCheck>> verify_directory(const std::string& dir, const Profile& profile,
                                                  uint64_t capacity_bytes, const VerifyPlan& plan,
                                                  const std::function<void(const std::string&)>& on_test);

}  // namespace diskcond
