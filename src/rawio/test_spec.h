// What one rawio test is: its kind (RR, SR, RW, SW), transfer size, concurrency and where it ends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace diskcond::rawio {

enum class TestKind { kRandomRead, kSequentialRead, kRandomWrite, kSequentialWrite };

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
  uint64_t seed = kDefaultSeed;  // random offsets: same seed, same offsets
};

}  // namespace diskcond::rawio
