// The disk model's properties, each checked with exact expected completion times.
#include "core/disk_model.h"

#include <gtest/gtest.h>

#include <random>

#include "core/units.h"

namespace diskcond {
namespace {

constexpr int64_t kMs = kNsPerMs;
constexpr int64_t kUs = kNsPerUs;
constexpr uint64_t kCapacity = 100 * kGiB;

Profile ssd(int64_t access_ns, uint64_t read_rate, uint64_t write_rate, uint32_t depth) {
  Profile p;
  p.name = "test ssd";
  p.type = DiskType::kSSD;
  p.access_time_ns = access_ns;
  p.read_bytes_per_sec = read_rate;
  p.write_bytes_per_sec = write_rate;
  p.queue_depth = depth;
  return p;
}

Profile hdd(int64_t access_ns, uint64_t rate) {
  Profile p = ssd(access_ns, rate, rate, 16);
  p.name = "test hdd";
  p.type = DiskType::kHDD;
  return p;
}

Command read_at(uint64_t offset, uint64_t length, int64_t arrival) {
  return {Op::kRead, offset, length, arrival};
}
Command write_at(uint64_t offset, uint64_t length, int64_t arrival) {
  return {Op::kWrite, offset, length, arrival};
}

TEST(TransferNs, RoundsUpAndTreatsZeroAsUnlimited) {
  EXPECT_EQ(transfer_ns(kMiB, 50 * kMiB), 20 * kMs);
  EXPECT_EQ(transfer_ns(4096, 250 * kMiB), 15625);
  EXPECT_EQ(transfer_ns(kMiB, kGiB), 976563);  // 976562.5 rounded up
  EXPECT_EQ(transfer_ns(kMiB, 0), 0);
}

// Property 1: 32 concurrent 1 MiB writes under "50 MB/s" complete 20 ms apart (macOS: ~10 ms).
TEST(DiskModel, ThroughputIsSharedByConcurrentCommands) {
  DiskModel model(ssd(100 * kUs, 50 * kMiB, 50 * kMiB, 32), kCapacity);
  for (int i = 0; i < 64; ++i) {
    int64_t done = model.submit(write_at(uint64_t(i) * kMiB, kMiB, 0));
    EXPECT_EQ(done, 100 * kUs + (i + 1) * 20 * kMs) << i;
  }
}

TEST(DiskModel, AggregateThroughputNeverExceedsProfileAtAnyConcurrency) {
  for (uint32_t concurrency : {1u, 2u, 8u, 32u, 256u}) {
    DiskModel model(ssd(0, 50 * kMiB, 50 * kMiB, 256), kCapacity);
    std::mt19937_64 rng(concurrency);
    int64_t last = 0;
    uint64_t bytes = 0;
    // Waves of `concurrency` commands of random sizes, each wave arriving when the previous ends.
    for (int wave = 0; wave < 20; ++wave) {
      int64_t arrival = last;
      for (uint32_t i = 0; i < concurrency; ++i) {
        uint64_t length = 4096 * (1 + rng() % 256);
        bytes += length;
        last = std::max(last, model.submit(read_at(rng() % kGiB, length, arrival)));
      }
    }
    double achieved = static_cast<double>(bytes) * 1e9 / static_cast<double>(last);
    EXPECT_LE(achieved, 50.0 * kMiB * (1 + 1e-9)) << concurrency;
    EXPECT_GE(achieved, 50.0 * kMiB * 0.999) << concurrency;  // and the channel never idles
  }
}

// Property 2: queue depth 4 -> at most 4 in service; the others wait, and waiting is latency.
TEST(DiskModel, QueueDepthCapsCommandsInService) {
  DiskModel model(ssd(1 * kMs, 0, 0, 4), kCapacity);
  std::vector<int64_t> done;
  for (int i = 0; i < 10; ++i) done.push_back(model.submit(read_at(0, 4096, 0)));
  std::vector<int64_t> expected = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(done[i], expected[i] * kMs) << i;
  EXPECT_EQ(model.outstanding(0), 10u);
  EXPECT_EQ(model.outstanding(kMs), 6u);
  EXPECT_EQ(model.outstanding(3 * kMs), 0u);
}

// Property 3: a 4 MiB read with max 1 MiB becomes four pieces, each paying the access time.
TEST(DiskModel, LargeCommandsAreSplitAndEachPiecePaysAccess) {
  Profile p = ssd(100 * kUs, kGiB, kGiB, 1);
  p.max_read_bytes = kMiB;
  DiskModel serial(p, kCapacity);
  EXPECT_EQ(serial.submit(read_at(0, 4 * kMiB, 0)), 4 * (100 * kUs + 976563));
  EXPECT_EQ(serial.counters().pieces, 4u);

  p.queue_depth = 8;  // pieces overlap their access, transfers queue on the channel
  DiskModel parallel(p, kCapacity);
  EXPECT_EQ(parallel.submit(read_at(0, 4 * kMiB, 0)), 100 * kUs + 4 * 976563);

  p.max_read_bytes = 3 * kMiB;  // uneven split: 3 MiB + 1 MiB
  DiskModel uneven(p, kCapacity);
  EXPECT_EQ(uneven.submit(read_at(0, 4 * kMiB, 0)),
            100 * kUs + transfer_ns(3 * kMiB, kGiB) + 976563);
}

// Property 4: SSD QD1 4 KiB random reads take access + transfer each; QD overlaps the access.
TEST(DiskModel, SsdQueueDepthOverlapsAccessUntilThroughputCaps) {
  const Profile slow = ssd(100 * kUs, 250 * kMiB, 125 * kMiB, 32);  // "Slow SSD"
  DiskModel qd1(slow, kCapacity);
  int64_t t = 0;
  for (int i = 1; i <= 5; ++i) {
    t = qd1.submit(read_at(uint64_t(i) * 7 * kGiB % kCapacity, 4096, t));
    EXPECT_EQ(t, i * (100 * kUs + 15625));  // 8648.6 IOPS
  }
  // 4 at once: all four accesses overlap, then four 15.625 us transfers.
  DiskModel qd4(slow, kCapacity);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(qd4.submit(read_at(0, 4096, 0)), 100 * kUs + (i + 1) * 15625);
}

// Property 5: HDD: one actuator, sequential continuation is free, other accesses seek.
TEST(DiskModel, HddSeekCurveAndSequentialContinuation) {
  const int64_t a = 12 * kMs;
  EXPECT_EQ(hdd_seek_ns(a, 0.0), 4 * kMs);        // the floor: a third of the access time
  EXPECT_EQ(hdd_seek_ns(a, 1.0), 19 * kMs);       // full stroke: 19/12 of it
  EXPECT_EQ(hdd_seek_ns(a, 0.25), 23 * kMs / 2);  // 1/3 + (2/3)(0.5)(15/8) = 23/24

  DiskModel model(hdd(a, 100 * kMiB), kCapacity);
  const int64_t mib = transfer_ns(kMiB, 100 * kMiB);  // 10 ms
  EXPECT_EQ(mib, 10 * kMs);
  // Head starts at 0: the first command continues from there.
  EXPECT_EQ(model.submit(read_at(0, kMiB, 0)), mib);
  EXPECT_EQ(model.submit(read_at(kMiB, kMiB, 0)), 2 * mib);  // queued behind, no seek
  // Jump a quarter of the disk away: pays the seek, after the actuator is free.
  const uint64_t quarter = kCapacity / 4;
  EXPECT_EQ(model.submit(read_at(2 * kMiB + quarter, kMiB, 0)), 2 * mib + 23 * kMs / 2 + mib);
  EXPECT_EQ(model.counters().seeks, 1u);
}

// HDD look-ahead: an idle drive keeps reading after a read, so a caller's turnaround between
// sequential reads costs no platter time; at most kHddReadAheadBytes, never after a write or seek.
TEST(DiskModel, HddLookAheadCoversTheCallersTurnaround) {
  DiskModel model(hdd(12 * kMs, 100 * kMiB), kCapacity);
  EXPECT_EQ(model.submit(read_at(0, kMiB, 0)), 10 * kMs);
  // 200 us later the next MiB: 20,971 bytes (200 us at 100 MiB/s) are in the buffer, the rest
  // comes off the platter: done 10 ms after the first, to the nanosecond's rounding.
  EXPECT_EQ(model.submit(read_at(kMiB, kMiB, 10 * kMs + 200 * kUs)),
            10 * kMs + 200 * kUs + transfer_ns(kMiB - 20'971, 100 * kMiB));
  EXPECT_EQ(10 * kMs + 200 * kUs + transfer_ns(kMiB - 20'971, 100 * kMiB), 20 * kMs + 5);
  // A second idle: the buffer holds kHddReadAheadBytes (1 MiB), not 100 MiB. The next MiB is
  // all in it (done at arrival); the 4 KiB right after it comes off the platter again.
  const int64_t later = 2 * kNsPerSec;
  EXPECT_EQ(model.submit(read_at(2 * kMiB, kMiB, later)), later);
  EXPECT_EQ(model.submit(read_at(3 * kMiB, 4096, later)), later + transfer_ns(4096, 100 * kMiB));
  EXPECT_EQ(model.counters().seeks, 0u);

  // After a write no look-ahead: the sequential read that follows an idle pays its transfer.
  DiskModel w(hdd(12 * kMs, 100 * kMiB), kCapacity);
  EXPECT_EQ(w.submit(write_at(0, kMiB, 0)), 10 * kMs);
  EXPECT_EQ(w.submit(read_at(kMiB, kMiB, 20 * kMs)), 30 * kMs);
  // After a seek the buffer starts empty: a read far away, then one right after it, 1 ms idle.
  DiskModel s2(hdd(12 * kMs, 100 * kMiB), kCapacity);
  s2.submit(read_at(0, 4096, 0));
  const int64_t t = s2.submit(read_at(kCapacity / 2, kMiB, 1 * kMs));  // seeks
  EXPECT_EQ(s2.submit(read_at(kCapacity / 2 + kMiB, kMiB, t + kMs)),
            t + kMs + transfer_ns(kMiB - 104'857, 100 * kMiB));  // 1 ms of look-ahead only
}

// HDD write-behind: a sequential write stream runs on while the caller turns around, as far as
// the last write's transfer covers the idle; never across a read, a flush or a seek, never before
// the write arrived.
TEST(DiskModel, HddWriteBehindCoversTheCallersTurnaround) {
  DiskModel model(hdd(12 * kMs, 100 * kMiB), kCapacity);
  EXPECT_EQ(model.submit(write_at(0, kMiB, 0)), 10 * kMs);
  // 200 us of turnaround: the platter did not stop, the MiB ends 10 ms after the first.
  EXPECT_EQ(model.submit(write_at(kMiB, kMiB, 10 * kMs + 200 * kUs)), 20 * kMs);
  // 15 ms of idle, more than the last MiB's 10 ms of destaging: a caching drive's platter idles
  // 5 ms, then writes this MiB, which is on it as it arrives (such a drive acknowledges at once).
  EXPECT_EQ(model.submit(write_at(2 * kMiB, kMiB, 35 * kMs)), 35 * kMs);
  // A 4 KiB write 6 ms later counts at most its own transfer: done when it arrived, not before.
  EXPECT_EQ(model.submit(write_at(3 * kMiB, 4096, 41 * kMs)), 41 * kMs);
  // After that 4 KiB, only its 39 us (4096 bytes at 100 MiB/s) count: 1 ms idle leaves 961 us.
  const int64_t small = transfer_ns(4096, 100 * kMiB);
  EXPECT_EQ(small, 39'063);
  EXPECT_EQ(model.submit(write_at(3 * kMiB + 4096, kMiB, 42 * kMs)), 42 * kMs + 10 * kMs - small);
  EXPECT_EQ(model.counters().seeks, 0u);

  // A write of 4 MiB counts only kHddWriteBufferBytes (1 MiB, 10 ms) of itself and of the last.
  DiskModel big(hdd(12 * kMs, 100 * kMiB), kCapacity);
  EXPECT_EQ(big.submit(write_at(0, 4 * kMiB, 0)), 40 * kMs);
  EXPECT_EQ(big.submit(write_at(4 * kMiB, 4 * kMiB, 70 * kMs)), 70 * kMs + 30 * kMs);

  // A flush waits for the cache: the write after it pays its whole transfer.
  DiskModel flushed(hdd(12 * kMs, 100 * kMiB), kCapacity);
  flushed.submit(write_at(0, kMiB, 0));
  EXPECT_EQ(flushed.submit({Op::kFlush, 0, 0, 10 * kMs}), 10 * kMs);
  EXPECT_EQ(flushed.submit(write_at(kMiB, kMiB, 10 * kMs + 200 * kUs)), 20 * kMs + 200 * kUs);
  // So does a write after a read, and a write that seeks (it pays its access too).
  DiskModel mixed(hdd(12 * kMs, 100 * kMiB), kCapacity);
  mixed.submit(read_at(0, kMiB, 0));
  EXPECT_EQ(mixed.submit(write_at(kMiB, kMiB, 10 * kMs + 200 * kUs)), 20 * kMs + 200 * kUs);
  const uint64_t quarter = kCapacity / 4;
  EXPECT_EQ(mixed.submit(write_at(2 * kMiB + quarter, kMiB, 30 * kMs + 200 * kUs)),
            30 * kMs + 200 * kUs + 23 * kMs / 2 + 10 * kMs);
}

TEST(DiskModel, HddRandomAccessAveragesExactlyTheAccessTime) {
  // Numerical mean of the curve over |U1 - U2| (density 2(1 - x)).
  const int64_t a = 52222 * kUs;
  const int steps = 200000;
  double sum = 0;
  for (int i = 0; i < steps; ++i) {
    double x = (i + 0.5) / steps;
    sum += static_cast<double>(hdd_seek_ns(a, x)) * 2 * (1 - x) / steps;
  }
  EXPECT_NEAR(sum / static_cast<double>(a), 1.0, 1e-4);

  // And as served: random 4 KiB reads average access + transfer (within sampling error).
  DiskModel model(hdd(a, 50 * kMiB), kCapacity);
  std::mt19937_64 rng(7);
  int64_t t = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i)
    t = model.submit(read_at((rng() % (kCapacity / 4096)) * 4096, 4096, t));
  double per_command = static_cast<double>(t) / n;
  EXPECT_NEAR(per_command / static_cast<double>(a + transfer_ns(4096, 50 * kMiB)), 1.0, 0.01);
}

TEST(DiskModel, HddServesOneCommandAtATimeWhateverTheQueueDepth) {
  DiskModel model(hdd(10 * kMs, 0), kCapacity);  // unlimited rate: only seeks cost
  const uint64_t far = kCapacity - 4096;
  EXPECT_EQ(model.submit(read_at(far, 4096, 0)), hdd_seek_ns(10 * kMs, double(far) / kCapacity));
  int64_t first = model.submit(read_at(0, 4096, 0));
  int64_t second = model.submit(read_at(far, 4096, 0));
  EXPECT_GT(second - first, 10 * kMs);  // the second waits for the first, then seeks back
}

TEST(DiskModel, HddSpinsUpAfterLongIdleWhenConfigured) {
  Profile p = hdd(10 * kMs, 0);
  p.spinup_idle_ns = 600 * kNsPerSec;
  p.spinup_ns = 8 * kNsPerSec;
  DiskModel model(p, kCapacity);
  int64_t t = model.submit(read_at(0, 4096, 0));  // spinning at start: no spin-up
  EXPECT_EQ(t, 0);
  t = model.submit(read_at(4096, 4096, t + 599 * kNsPerSec));  // idle 599 s: still spinning
  EXPECT_EQ(t, 599 * kNsPerSec);
  int64_t arrival = t + 600 * kNsPerSec;
  EXPECT_EQ(model.submit(read_at(8192, 4096, arrival)), arrival + 8 * kNsPerSec);
}

// Property 6: own throughput per direction; a flush waits for every earlier write only.
TEST(DiskModel, ReadsAndWritesUseTheirOwnThroughputAndFlushWaitsForWrites) {
  DiskModel model(ssd(0, 100 * kMiB, 50 * kMiB, 8), kCapacity);
  EXPECT_EQ(model.submit(write_at(0, kMiB, 0)), 20 * kMs);
  EXPECT_EQ(model.submit(read_at(0, kMiB, 0)), 30 * kMs);  // shares the channel after the write
  EXPECT_EQ(model.submit({Op::kFlush, 0, 0, 1 * kMs}), 20 * kMs);
  EXPECT_EQ(model.submit({Op::kFlush, 0, 0, 25 * kMs}), 25 * kMs);  // nothing left to wait for
  EXPECT_EQ(model.submit(write_at(0, kMiB, 26 * kMs)), 50 * kMs);
  EXPECT_EQ(model.submit({Op::kFlush, 0, 0, 27 * kMs}), 50 * kMs);
  ModelCounters c = model.counters();
  EXPECT_EQ(c.commands[0], 1u);
  EXPECT_EQ(c.commands[1], 2u);
  EXPECT_EQ(c.commands[2], 3u);
  EXPECT_EQ(c.bytes[1], 2 * kMiB);
}

// Property 7: a new profile applies to commands arriving afterwards.
TEST(DiskModel, ProfileChangeAppliesToLaterCommands) {
  DiskModel model(ssd(0, 50 * kMiB, 50 * kMiB, 4), kCapacity);
  EXPECT_EQ(model.submit(read_at(0, kMiB, 0)), 20 * kMs);
  model.set_profile(ssd(0, 100 * kMiB, 100 * kMiB, 4));
  EXPECT_EQ(model.submit(read_at(0, kMiB, 0)), 30 * kMs);  // after the earlier one, at the new rate
  EXPECT_EQ(model.submit(read_at(0, kMiB, 50 * kMs)), 60 * kMs);
  EXPECT_EQ(model.profile().read_bytes_per_sec, 100 * kMiB);

  // Shrinking the queue keeps the busiest slots: new work cannot overtake old work.
  DiskModel q(ssd(10 * kMs, 0, 0, 4), kCapacity);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(q.submit(read_at(0, 1, 0)), 10 * kMs);
  q.set_profile(ssd(1 * kMs, 0, 0, 1));
  EXPECT_EQ(q.submit(read_at(0, 1, 0)), 11 * kMs);
}

TEST(DiskModel, UnlimitedProfileAddsNothingAndTimeNeverRunsBackwards) {
  DiskModel model(ssd(0, 0, 0, 1), kCapacity);
  EXPECT_EQ(model.submit(read_at(0, kGiB, 5)), 5);
  EXPECT_EQ(model.submit(write_at(0, kGiB, 9)), 9);
  EXPECT_EQ(model.submit(read_at(0, 1, 3)), 9);  // arrives "before" the previous: clamped
  EXPECT_EQ(model.counters().overtaken, 1u);
}

// A piece sent before the one submitted ahead of it (a split read whose pieces reached the model
// out of order) is served after it, as if arriving with it: on an HDD that is a seek back.
TEST(DiskModel, AnOvertakenCommandIsCountedAndServedAfterTheOneAheadOfIt) {
  const int64_t a = 12 * kMs;
  DiskModel model(hdd(a, 100 * kMiB), kCapacity);
  const int64_t mib = transfer_ns(kMiB, 100 * kMiB);  // 10 ms
  const auto seek = [a](uint64_t distance) {
    return hdd_seek_ns(a, static_cast<double>(distance) / static_cast<double>(kCapacity));
  };
  // The head is at 0; the piece that ends at 2 MiB comes first.
  const int64_t first = 2 * kUs + seek(kMiB) + mib;
  EXPECT_EQ(model.submit(read_at(kMiB, kMiB, 2 * kUs)), first);
  EXPECT_EQ(model.counters().overtaken, 0u);
  // Sent at 1 us, before the piece above: served after it, from 2 MiB back to 0.
  EXPECT_EQ(model.submit(read_at(0, kMiB, 1 * kUs)), first + seek(2 * kMiB) + mib);
  const ModelCounters c = model.counters();
  EXPECT_EQ(c.overtaken, 1u);
  EXPECT_EQ(c.seeks, 2u);
}

}  // namespace
}  // namespace diskcond
