// dmc verify: measures a directory with rawio's engine and compares each standard workload with
// what the disk model predicts for the profile. Prints nothing; the CLI formats the checks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/predict.h"
#include "core/profile.h"
#include "core/result.h"
#include "dmc/mount/mount_control.h"
#include "dmc/predict_report.h"

namespace diskcond::dmc {

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
  double tolerance = 0.05;  // |measured / predicted - 1| allowed
  // A workload short of its prediction is the machine's floor, not a failure, when at least this
  // share of its replies waited for the backing disk rather than the model, or (queue depth 1)
  // when the time the machine added to its replies accounts for the shortfall (judge()).
  double floor_share = 0.5;
  // The test file made in the directory (and removed). For HDD profiles it grows so that a
  // sequential pass never wraps within a test (a wrap is a seek the prediction does not have).
  uint64_t min_file_bytes = 64ull << 20;
  uint64_t max_file_bytes = 1ull << 30;
  // A queue-depth-1 workload that falls short is compared with an ideal device of the model's
  // speed on this machine (dmc/ideal_device.h), measured for about this long; 0: never.
  int64_t ideal_device_budget_ns = 1'000'000'000;
  // A workload that would fail short of its prediction runs again, up to this many runs in all,
  // and the fastest run counts: this machine's stalls only ever slow a run, and come and go (on
  // the 2-core VM a virtual CPU sometimes stalled 3-9 ms at a wake-up for seconds on end, while
  // the model's own times stayed the prediction's: 7200 HDD random reads -7% to -33% in one run,
  // -1% in the next; docs/benchmarks.md). A run faster than the tolerance fails whichever it is.
  int runs_when_short = 3;
};

// The test file size verify uses for `profile` under `plan`.
uint64_t verify_file_bytes(const Profile& profile, const VerifyPlan& plan);

enum class Verdict {
  kPass,   // within the tolerance of the prediction (or nothing predicted)
  kFail,   // outside it, and the mount's conditioning is to blame
  kFloor,  // short of the prediction, and the machine, not the model, is why: most replies were
           // timed by the backing disk, or the machine's delays account for the shortfall
};

// What verify reads from the mount's daemon (MountControl::status) right before and right after
// each workload. Both counts are since the daemon started; only their differences matter.
struct BackingBoundSample {
  // Commands the mount's model timed: reads, writes and flushes. Metadata changes count as
  // writes (the daemon does not count them apart), and so does dirty data written back in
  // write-back mode, which has no reply of its own.
  uint64_t commands = 0;
  // Replies whose backing I/O ended after the model's completion: the host, not the profile,
  // decided when they left (MountDiagnostics::backing_bound_replies).
  uint64_t backing_bound_replies = 0;
  // The time the machine added to replies, in ns: backing I/O that ended after the model's
  // completion plus replies sent after their due time (the scheduler thread waited for a CPU or
  // a late timer); MountDiagnostics' backing_bound_excess_total_ns + lateness_total_ns.
  int64_t host_delay_ns = 0;
  // The mount holds idle CPUs polling now (MountDiagnostics::idle_poll_state 2; it does while
  // traffic flows and for a second after): an ideal device measured for comparison must too.
  bool idle_poll_held = false;
  // The largest read and write requests the kernel sends the daemon (MountDiagnostics::
  // read_request_max_bytes, write_request_max_bytes; 0: no limit known): a larger read or write
  // reaches the model as pieces sent together, whose replies overlap.
  uint64_t read_request_max_bytes = 0;
  uint64_t write_request_max_bytes = 0;
};

// The sample in a live mount's status.
BackingBoundSample backing_bound_sample(const mount::MountStatus& status);

// Reads a sample from the live mount; never changes anything. Errors are one line.
using BackingBoundProbe = std::function<Result<BackingBoundSample>()>;

// Waits until what was written to the mount before is on its pretend disk and the backing disk
// (the mount's `dmc sync`: dirty data written back, the journal committed, the backing file
// system synced); changes no setting. Errors are one line.
using SettleMount = std::function<Status()>;

// The share of the commands between `before` and `after` whose replies were backing-bound, in
// [0, 1]; 0 when no command was counted. Everything on the mount in that time counts, not only
// verify's transfers (the daemon does not tell callers apart).
double backing_bound_share(const BackingBoundSample& before, const BackingBoundSample& after);

// The time the machine added to replies between `before` and `after` as a share of `wall_ns`
// (the workload's duration), in [0, 1]. For one caller at queue depth 1 every such nanosecond
// is one the caller waited on top of the model's time: the measured rate without them is
// measured / (1 - share). At higher depths delays overlap with other commands' service, so
// verify does not use it there.
double host_delay_share(const BackingBoundSample& before, const BackingBoundSample& after,
                        int64_t wall_ns);

struct VerifyCheck {
  std::string label;
  Workload workload;         // as run (queue depth resolved, span of the test file)
  Prediction predicted;      // infinite when the profile sets no limit for it
  double measured_iops = 0;  // transfers after the warm-up over the time they took (fractional)
  double measured_bytes_per_sec = 0;
  double measured_seconds = 0;  // the time those transfers took
  double error = 0;             // measured / predicted - 1 (0 when the prediction is unlimited)
  // The share of the mount's replies during the workload (warm-up included) that waited for the
  // backing disk rather than the model; empty when not read (no probe).
  std::optional<double> backing_bound_share;
  // Queue depth 1: the share of the workload's time the machine added to its replies
  // (host_delay_share()); empty at higher depths, for reads and writes the mount splits into
  // pieces (BackingBoundSample::read_request_max_bytes, write_request_max_bytes), or without a
  // probe.
  std::optional<double> host_delay_share;
  // Queue depth 1, short of the prediction: what an ideal device of the model's speed delivers to
  // a caller that sleeps while it waits and first pins its buffer, as the kernel pins an
  // O_DIRECT caller's, on this machine (dmc/ideal_device.h); else empty.
  std::optional<double> ideal_iops;
  Verdict verdict = Verdict::kFail;
  bool pass = false;  // verdict != kFail: nothing the mount is to blame for
  // The rate of every run, in order (VerifyPlan::runs_when_short); the figures above are the
  // fastest run's. One entry when the first run did not fail short.
  std::vector<double> runs_iops;
};

// A queue-depth-1 workload's error (measured / predicted - 1) without the machine's delays, which
// took `host_share` (< 1) of its time: (1 + error) / (1 - host_share) - 1.
double error_without_host_delays(double error, double host_share);

// The verdict for `measured_iops` against `predicted_iops` (infinite: nothing predicted): within
// `tolerance` is kPass; short of it by more is kFloor when at least `floor_share` of the
// workload's replies were backing-bound (`share`, empty when unknown), or when the rate without
// the machine's delays (`host_share`, host_delay_share(); empty when unknown) is no longer short
// by more than `tolerance`, or when an ideal device of the model's speed on this machine
// (`ideal_iops`, empty when not measured) is itself short by more than `tolerance` and the
// measurement is no more than `tolerance` below it (waking a sleeping caller costs this machine
// more than the tolerance allows); else kFail. Faster than predicted is always kFail: the
// machine's delays only ever make a mount slower.
Verdict judge(double predicted_iops, double measured_iops, std::optional<double> share,
              double tolerance, double floor_share, std::optional<double> host_share = std::nullopt,
              std::optional<double> ideal_iops = std::nullopt);

// How long verify runs a workload predicted to do `predicted_iops` (infinite: no limit): the
// plan's time, or longer, up to its maximum, for min_transfers after the warm-up.
int64_t verify_test_ns(double predicted_iops, const VerifyPlan& plan);

// Runs every workload of `plan` on a test file in `dir` with O_DIRECT (psync at queue depth 1,
// io_uring above), one worker, and checks each steady-state figure (after the warm-up second)
// against predict(profile, workload) for random offsets within the file's share of
// `capacity_bytes` (the mount's device address space).
// `on_test` is called before each workload with its label. With `settle`, each workload starts on
// a quiet disk: written-back data, a journal commit or the backing disk's flush left by whatever
// ran before (the test file's creation, the workload before, another program) would otherwise
// take device time from it (after rawio's demo run, SEQ1M Q1 read measured -4.8% instead of
// -1.6%). With `probe`, the mount's counters are read right before and right after each workload
// (after settling), and a workload that falls short is judged against the share of backing-bound
// replies (judge()). verify never changes the mount's settings:
// switching conditioning off, even for one workload, would let every other caller's replies
// through before the model's completion. Errors: the directory cannot hold the test file,
// O_DIRECT unsupported, an I/O error, the probe failed (one line each).
Result<std::vector<VerifyCheck>> verify_directory(
    const std::string& dir, const Profile& profile, uint64_t capacity_bytes, const VerifyPlan& plan,
    const std::function<void(const std::string&)>& on_test,
    const BackingBoundProbe& probe = nullptr, const SettleMount& settle = nullptr);

}  // namespace diskcond::dmc
