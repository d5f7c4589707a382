// Integration: whatever a caller does between requests, no request through a conditioned mount
// completes sooner than the disk model's service time for it, less kEarlyToleranceNs.
//
// The caller issues queue-depth-1 O_DIRECT requests at random block offsets and spins (keeps its
// CPU busy, as an application computing would) for a fixed think time between them. The model's
// service time of each request is computed by a replica DiskModel fed the same device addresses
// (AddressSpace, as the daemon maps them) with the device idle at arrival, so HDD seeks are exact.
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "core/disk_model.h"
#include "dmc/mount/address_space.h"
#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

// How much sooner than the model's service time a request may complete (measured from the
// caller's syscall to its return). Replies are never sent before their due time; the lead
// subtracted from a due time is the smallest round trip of the daemon's own back-to-back probes,
// at most 5 us (Conditioner::kMaxTransitLeadNs), so a reply leaves at most 5 us early and still
// has its own trip to make. Measured on the 2-core VM (load 1.3, lead 3.6 us): the earliest
// request of these cases was 24 us *later* than its service time. Lone probes' bound, 3.5-28 us
// depending on the mount and uncapped, once let three 4 KiB reads come 21-26 us early.
constexpr int64_t kEarlyToleranceNs = 10'000;

struct Sample {
  uint64_t offset;
  int64_t issued_ns;
  int64_t latency_ns;
};

void spin_for(int64_t ns) {
  const int64_t until = monotonic_now_ns() + ns;
  while (monotonic_now_ns() < until) {
  }
}

// `count` QD1 O_DIRECT requests of `bs` bytes at random block offsets below `span`, with
// `think_ns` of spinning between them.
std::vector<Sample> qd1_with_think(const std::string& file, Op op, size_t bs, uint64_t span,
                                   int count, int64_t think_ns) {
  std::vector<Sample> samples;
  const int fd = open(file.c_str(), (op == Op::kWrite ? O_RDWR : O_RDONLY) | O_DIRECT);
  if (fd < 0) return samples;
  void* raw = nullptr;
  if (posix_memalign(&raw, 4096, bs) != 0) return samples;
  std::memset(raw, 'x', bs);
  std::mt19937_64 rng(42);
  for (int i = 0; i < count; ++i) {
    const uint64_t offset = rng() % (span / bs) * bs;
    const int64_t t0 = monotonic_now_ns();
    const ssize_t r = op == Op::kWrite ? pwrite(fd, raw, bs, static_cast<off_t>(offset))
                                       : pread(fd, raw, bs, static_cast<off_t>(offset));
    const int64_t t1 = monotonic_now_ns();
    if (r != static_cast<ssize_t>(bs)) break;
    samples.push_back({offset, t0, t1 - t0});
    spin_for(think_ns);
  }
  free(raw);
  close(fd);
  return samples;
}

class MountNeverFaster : public MountTest {
 protected:
  // Makes `name` (`size` bytes) before the mount and remembers where the daemon will place it.
  void make_file(const std::string& name, uint64_t size) {
    const std::string p = path(name);
    FILE* f = fopen(p.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::vector<char> block(kMiB, 'a');
    for (uint64_t off = 0; off < size; off += kMiB) fwrite(block.data(), 1, kMiB, f);
    fclose(f);
    struct stat st;
    ASSERT_EQ(stat(p.c_str(), &st), 0);
    struct statvfs vfs;
    ASSERT_EQ(statvfs(dir_.c_str(), &vfs), 0);
    capacity_ = std::max<uint64_t>(static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize, kMiB);
    base_ = AddressSpace(capacity_).region_base(st.st_dev, st.st_ino);
  }

  // Checks every sample against the model's service time for it; returns the earliest one
  // (latency - service, ns; negative = sooner than the model) and prints the median.
  int64_t check(const Profile& profile, Op op, size_t bs, const std::vector<Sample>& samples,
                const char* what) {
    DiskModel replica(profile, capacity_);
    const AddressSpace space(capacity_);
    int64_t idle_at = 0, earliest = INT64_MAX;
    std::vector<double> ratio;
    bool first = true;
    for (const Sample& s : samples) {
      const int64_t arrival = std::max(s.issued_ns, idle_at);
      const int64_t done = replica.submit(Command{op, space.address(base_, s.offset), bs, arrival});
      idle_at = done;
      // Where an HDD's head is before the first request depends on what the open read (the
      // file's inode, its directory): the replica only knows it from the first request on.
      if (std::exchange(first, false)) continue;
      const int64_t service = done - arrival;
      earliest = std::min(earliest, s.latency_ns - service);
      ratio.push_back(static_cast<double>(s.latency_ns) / static_cast<double>(service));
      EXPECT_GE(s.latency_ns, service - kEarlyToleranceNs)
          << what << ": a request at offset " << s.offset << " took " << s.latency_ns
          << " ns, the model's service time is " << service << " ns";
    }
    std::nth_element(ratio.begin(), ratio.begin() + ratio.size() / 2, ratio.end());
    std::printf("  %-34s %4zu requests, earliest %+7.1f us, median latency/service %.3f\n", what,
                samples.size(), static_cast<double>(earliest) / 1e3, ratio[ratio.size() / 2]);
    return earliest;
  }

  uint64_t capacity_ = 0;
  uint64_t base_ = 0;
};

constexpr int64_t kUs = 1000;
constexpr uint64_t kKiB = 1024;

TEST_F(MountNeverFaster, SlowSsdSmallReadsWhateverTheThinkTime) {
  make_file("f", 64 * kMiB);
  const Profile slow_ssd = builtin_profiles()[3];
  ASSERT_EQ(slow_ssd.name, "Slow SSD");
  start(slow_ssd);
  qd1_with_think(path("f"), Op::kRead, 4096, 64 * kMiB, 200, 0);  // warm-up
  for (int64_t think : {0, 30, 100, 500}) {
    const auto samples = qd1_with_think(path("f"), Op::kRead, 4096, 64 * kMiB, 400, think * kUs);
    ASSERT_EQ(samples.size(), 400u);
    char what[64];
    std::snprintf(what, sizeof(what), "4 KiB read, think %lld us", static_cast<long long>(think));
    check(slow_ssd, Op::kRead, 4096, samples, what);
  }
}

// The transit lead exceeds the fastest round trip a caller can get (requests sent back to back,
// while the caller's and the daemon's threads are awake; a lone request waits for sleeping
// threads and takes several times as long) by less than the tolerance, so no reply comes that
// much early. The probes' bound alone failed this in a fresh-clone CI run (a 25.9 us lead, 4.3 us
// trips: start-up bursts that all met a slow machine); the lead is capped since. The caller's
// whole statx is timed here, the daemon's handler included (loose by its microsecond).
TEST_F(MountNeverFaster, TheTransitLeadIsNoLongerThanABackToBackRoundTrip) {
  start(builtin_profiles()[3]);
  usleep(200 * 1000);  // the start-up probes (16, 1 ms apart) are done
  const int fd = open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  int64_t fastest = INT64_MAX;
  for (int i = 0; i < 4000; ++i) {
    struct statx stx;
    const int64_t t0 = monotonic_now_ns();
    ASSERT_EQ(statx(fd, "", AT_EMPTY_PATH | AT_STATX_FORCE_SYNC, STATX_BASIC_STATS, &stx), 0);
    fastest = std::min(fastest, monotonic_now_ns() - t0);
  }
  close(fd);
  auto status = control_->status(dir_);
  ASSERT_TRUE(status.ok()) << status.error();
  const int64_t lead = status->diagnostics.transit_lead_read_ns;
  std::printf("  transit lead %.1f us, fastest back-to-back statx %.1f us\n",
              static_cast<double>(lead) / 1e3, static_cast<double>(fastest) / 1e3);
  EXPECT_LT(lead, fastest + kEarlyToleranceNs);
}

TEST_F(MountNeverFaster, SlowSsdSmallWritesAndLargeTransfers) {
  make_file("f", 64 * kMiB);
  const Profile slow_ssd = builtin_profiles()[3];
  start(slow_ssd);
  for (int64_t think : {0, 100, 500}) {
    char what[64];
    std::snprintf(what, sizeof(what), "4 KiB write, think %lld us", static_cast<long long>(think));
    const auto writes = qd1_with_think(path("f"), Op::kWrite, 4096, 64 * kMiB, 300, think * kUs);
    ASSERT_EQ(writes.size(), 300u);
    check(slow_ssd, Op::kWrite, 4096, writes, what);
  }
  for (Op op : {Op::kRead, Op::kWrite}) {
    for (int64_t think : {0, 200}) {
      char what[64];
      std::snprintf(what, sizeof(what), "1 MiB %s, think %lld us",
                    op == Op::kRead ? "read" : "write", static_cast<long long>(think));
      const auto big = qd1_with_think(path("f"), op, kMiB, 64 * kMiB, 40, think * kUs);
      ASSERT_EQ(big.size(), 40u);
      check(slow_ssd, op, kMiB, big, what);
    }
  }
}

// A large read's reply leaves earlier by its copy into the caller (CopyBound): the caller
// still never sees less than the model's time, whatever it does between reads, and a size whose
// own copies were never measured (256 KiB after 1 MiB ones) gets no more than smaller sizes'.
TEST_F(MountNeverFaster, SlowSsdLargeReadsWhateverTheThinkTime) {
  make_file("f", 64 * kMiB);
  const Profile slow_ssd = builtin_profiles()[3];
  start(slow_ssd);
  qd1_with_think(path("f"), Op::kRead, kMiB, 64 * kMiB, 40, 0);  // the copy bound gets ready
  for (size_t bs : {kMiB, 256 * kKiB}) {
    for (int64_t think : {0, 100, 500}) {
      const auto samples = qd1_with_think(path("f"), Op::kRead, bs, 64 * kMiB, 100, think * kUs);
      ASSERT_EQ(samples.size(), 100u);
      char what[64];
      std::snprintf(what, sizeof(what), "%zu KiB read, think %lld us", bs / kKiB,
                    static_cast<long long>(think));
      check(slow_ssd, Op::kRead, bs, samples, what);
    }
  }
}

TEST_F(MountNeverFaster, HddReadsWithAMillisecondOfThinkTime) {
  make_file("f", 64 * kMiB);
  const Profile hdd = builtin_profiles()[0];
  ASSERT_EQ(hdd.type, DiskType::kHDD);
  start(hdd);
  const auto samples = qd1_with_think(path("f"), Op::kRead, 4096, 64 * kMiB, 40, 1000 * kUs);
  ASSERT_EQ(samples.size(), 40u);
  check(hdd, Op::kRead, 4096, samples, "HDD 4 KiB read, think 1 ms");
}

}  // namespace
}  // namespace diskcond::mount::testing
