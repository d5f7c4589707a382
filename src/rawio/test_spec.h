// What one rawio test is: its kind (RR, SR, RW, SW), transfer size, concurrency and where it ends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskcond::rawio {

enum class TestKind { kRandomRead, kSequentialRead, kRandomWrite, kSequentialWrite };

// When an open-loop test issues its transfers: kFixed, evenly spaced (1/rate apart); kPoisson, at
// exponentially distributed gaps of mean 1/rate (a Poisson process), drawn from the test's seed.
enum class Arrival { kFixed, kPoisson };
std::string_view arrival_key(Arrival arrival);               // "fixed", "poisson"
std::optional<Arrival> parse_arrival(std::string_view key);  // the inverse; nullopt otherwise

// The four tests in the order the original runs and prints them.
inline constexpr TestKind kAllTests[] = {TestKind::kRandomRead, TestKind::kSequentialRead,
                                         TestKind::kRandomWrite, TestKind::kSequentialWrite};

// "RR", "SR", "RW", "SW": the codes of the original's verbose output.
std::string_view test_code(TestKind kind);
// "Random read", "Sequential read", ...: the titles of the original's default table.
std::string_view test_title(TestKind kind);
// "random_read", ...: the names JSON uses.
std::string_view test_key(TestKind kind);
bool is_write(TestKind kind);
bool is_random(TestKind kind);

constexpr uint32_t kDefaultTransferBytes = 16384;
constexpr unsigned kDefaultWorkers = 8;
constexpr int64_t kDefaultTimeLimitNs = 5'000'000'000;        // measured time per test
constexpr int64_t kDefaultWarmupNs = 1'000'000'000;           // before it, not measured
constexpr int64_t kDefaultCountTimeLimitNs = 10'000'000'000;  // the cap of a count-based test
constexpr uint64_t kUnlimitedTransfers = UINT64_MAX;          // a time-based test's count
constexpr uint64_t kDefaultSeed = 1;
constexpr double kMaxRatePerSec = 1e9;  // an open-loop schedule's arrivals are >= 1 ns apart

struct TestSpec {
  TestKind kind = TestKind::kRandomRead;
  uint32_t transfer_bytes = kDefaultTransferBytes;
  unsigned workers = kDefaultWorkers;
  unsigned iodepth = 1;  // outstanding transfers per worker
  // Transfers queued before each submission to the kernel. 1 (fio's default) starts every
  // transfer at once; larger batches save system calls but can add latency (virtio disks do).
  unsigned submit_batch = 1;
  // Bytes of the target the test touches, from offset 0; a multiple of transfer_bytes.
  uint64_t area_bytes = 0;
  // The test ends after this many transfers in total (shared among the workers, the first
  // `count % workers` doing one more) or at the time limit, whichever comes first.
  uint64_t transfer_count = 0;
  int64_t time_limit_ns = kDefaultTimeLimitNs;
  // Workers run this long before the measured time starts (fio's ramp_time): what completes in it
  // is not counted, and the time limit, the elapsed time, the CPU time and the per-second
  // intervals all start after it. 0: measure from the first transfer.
  int64_t warmup_ns = 0;
  uint64_t seed = kDefaultSeed;  // random offsets and arrivals: same seed, same sequence
  // 0: closed loop (the default): each worker issues its next transfer when one completes.
  // Above 0: open loop: transfers are issued on a schedule of this many per second in total over
  // all workers (each worker takes every workers-th arrival, as the transfer count is shared),
  // whatever the device does, and latency is measured from the intended issue time.
  double rate_per_sec = 0;
  Arrival arrival = Arrival::kFixed;  // open loop only

  bool open_loop() const { return rate_per_sec > 0; }
};

}  // namespace diskcond::rawio
