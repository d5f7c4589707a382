// Integration: a real mount delivers what the profile says. Short runs with scaled profiles
// (tens of MiB/s, milliseconds of access) so the whole set stays fast; bounds are a little
// looser than the hand-run acceptance figures (docs/conditioner.md) but every one of them fails
// when conditioning is off, doubled, or unshared between concurrent commands.
//
// CI runs these on a cold, fresh machine. A mount is never faster than its profile, so the upper
// bounds stay tight; the lower bounds leave room for a busy host (a reply is late when the host
// is) and tight goals live in bench/.
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/predict.h"
#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

constexpr double kSec = 1e9;

struct Measured {
  double mib_per_s = 0;
  double iops = 0;
};

// QD1 O_DIRECT loop for `seconds`: sequential or random `bs` blocks over the first `span` bytes.
// Writes fill blocks with `fill(offset)` so contents can be checked later.
Measured direct_loop(const std::string& file, bool write, bool random, size_t bs, uint64_t span,
                     double seconds, uint64_t seed = 1) {
  int fd = open(file.c_str(), (write ? O_RDWR | O_CREAT : O_RDONLY) | O_DIRECT, 0644);
  if (fd < 0) return {};
  void* raw = nullptr;
  if (posix_memalign(&raw, 4096, bs) != 0) return {};
  char* buf = static_cast<char*>(raw);
  std::mt19937_64 rng(seed);
  const uint64_t blocks = span / bs;
  uint64_t n = 0, bytes = 0, next = 0;
  const int64_t start = monotonic_now_ns();
  int64_t now = start;
  while (now - start < seconds * kSec) {
    const uint64_t off = (random ? rng() % blocks : next++ % blocks) * bs;
    if (write) std::memset(buf, static_cast<int>('a' + (off / bs) % 26), bs);
    ssize_t r = write ? pwrite(fd, buf, bs, static_cast<off_t>(off))
                      : pread(fd, buf, bs, static_cast<off_t>(off));
    if (r != static_cast<ssize_t>(bs)) break;
    ++n;
    bytes += bs;
    now = monotonic_now_ns();
  }
  free(raw);
  close(fd);
  const double elapsed = static_cast<double>(now - start) / kSec;
  return {static_cast<double>(bytes) / kMiB / elapsed, static_cast<double>(n) / elapsed};
}

// Creates `file` of `size` bytes filled like direct_loop's writes, without going through the
// mount (call before start()).
void make_file(const std::string& file, uint64_t size, size_t bs = 1 << 20) {
  FILE* f = fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::vector<char> block(bs);
  for (uint64_t off = 0; off < size; off += bs) {
    std::memset(block.data(), static_cast<int>('a' + (off / bs) % 26), bs);
    fwrite(block.data(), 1, bs, f);
  }
  fclose(f);
}

bool have_fio() {
  return std::system("fio --version >/dev/null 2>&1") == 0;
}

// Runs fio with libaio (or `engine`) on `file` and returns what it measured.
Measured fio(const std::string& file, const std::string& rw, const std::string& bs, int iodepth,
             double seconds, const std::string& size, const std::string& engine = "libaio") {
  char cmd[1024];
  std::snprintf(cmd, sizeof(cmd),
                "fio --filename=%s --direct=1 --rw=%s --ioengine=%s --bs=%s --iodepth=%d "
                "--size=%s --runtime=%.1f --time_based --name=t --output-format=json 2>/dev/null",
                file.c_str(), rw.c_str(), engine.c_str(), bs.c_str(), iodepth, size.c_str(),
                seconds);
  FILE* p = popen(cmd, "r");
  if (p == nullptr) return {};
  std::string out;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, got);
  pclose(p);
  auto j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.contains("jobs")) return {};
  const auto& job = j["jobs"][0][rw.find("read") != std::string::npos ? "read" : "write"];
  return {job["bw_bytes"].get<double>() / kMiB, job["iops"].get<double>()};
}

// Expects `measure()` within [low, high] x expected. The machine is shared with other builds, so
// a run outside the bounds is measured once more before failing: one disturbed run must not fail
// the suite, while a wrongly conditioned mount fails both. The upper bound (never faster than the
// profile) always holds; the lower one is checked only when CPU pressure during the final
// measurement stayed below CpuPressure::kBusy (on a machine that busy, callers wait for a CPU).
#define EXPECT_WITHIN(measure, expected, low, high)                                  \
  do {                                                                               \
    const double _want = (expected);                                                 \
    CpuPressure _pressure;                                                           \
    double _got = (measure);                                                         \
    if (_got < _want * (low) || _got > _want * (high)) {                             \
      _pressure = CpuPressure();                                                     \
      _got = (measure);                                                              \
    }                                                                                \
    const double _busy = _pressure.share();                                          \
    if (_busy < CpuPressure::kBusy) {                                                \
      EXPECT_GE(_got, _want*(low))                                                   \
          << "expected about " << _want << " (CPU pressure " << _busy * 100 << "%)"; \
    } else if (_got < _want * (low)) {                                               \
      std::printf(                                                                   \
          "  %s: %.1f against about %.1f; CPU pressure %.0f%%: lower bound not "     \
          "checked\n",                                                               \
          #measure, _got, _want, _busy * 100);                                       \
    }                                                                                \
    EXPECT_LE(_got, _want*(high)) << "expected about " << _want;                     \
  } while (0)

using MountTiming = MountTest;

// Acceptance 1, short: the seed article's fio command under "Faulty 5400 HDD" (50 MiB/s).
// macOS dmc measures 95 MiB/s here; a shared budget gives 50.
TEST_F(MountTiming, SeedArticleCheckShort) {
  if (!have_fio()) GTEST_SKIP() << "fio not installed";
  start(builtin_profiles()[0]);
  EXPECT_WITHIN(fio(path("test1"), "write", "1m", 32, 3, "1G", "posixaio").mib_per_s, 50.0, 0.75,
                1.03);
}

// Acceptance 2: 1 MiB sequential reads and writes at QD1 and QD32 get the profile's throughput.
TEST_F(MountTiming, SequentialThroughputAtQd1AndQd32) {
  make_file(path("seq"), 64 * kMiB);
  start(ssd_profile(20, 100, 32));
  const double predicted =
      predict(ssd_profile(20, 100, 32), Workload{Pattern::kSequential, Op::kWrite, kMiB, 1})
          .bytes_per_sec /
      kMiB;
  EXPECT_WITHIN(direct_loop(path("seq"), true, false, kMiB, 64 * kMiB, 1.5).mib_per_s, predicted,
                0.75, 1.03);
  EXPECT_WITHIN(direct_loop(path("seq"), false, false, kMiB, 64 * kMiB, 1.5).mib_per_s, predicted,
                0.75, 1.03);
  if (!have_fio()) GTEST_SKIP() << "fio not installed";
  EXPECT_WITHIN(fio(path("seq"), "write", "1m", 32, 1.5, "64M").mib_per_s, 20.0, 0.75, 1.03);
  EXPECT_WITHIN(fio(path("seq"), "read", "1m", 32, 1.5, "64M").mib_per_s, 20.0, 0.75, 1.03);
}

// Acceptance 2: 4 KiB random reads at QD1 match predict(), never faster.
// On two fresh clones the first run measured 319 and 394 IOPS against 455 predicted (reruns: in
// bounds): a cold machine's first mount is slow for a moment. So: a warm-up, 3 s of samples
// (~1,350 reads), and a lower bound that still fails when conditioning is doubled (0.5) or off.
TEST_F(MountTiming, RandomReadsMatchThePrediction) {
  make_file(path("rand"), 64 * kMiB);
  const Profile profile = ssd_profile(20, 2000, 8);
  start(profile);
  const double predicted = predict(profile, Workload{Pattern::kRandom, Op::kRead, 4096, 1}).iops;
  direct_loop(path("rand"), false, true, 4096, 64 * kMiB, 0.5);  // warm-up
  EXPECT_WITHIN(direct_loop(path("rand"), false, true, 4096, 64 * kMiB, 3.0).iops, predicted, 0.75,
                1.01);
}

// Acceptance 2: more concurrency than the profile's queue depth gains nothing.
TEST_F(MountTiming, ConcurrencyBeyondQueueDepthGainsNothing) {
  if (!have_fio()) GTEST_SKIP() << "fio not installed";
  make_file(path("rand"), 64 * kMiB);
  const Profile profile = ssd_profile(0, 4000, 4);  // 4 ms per command, 4 at once: 1000 IOPS
  start(profile);
  EXPECT_WITHIN(fio(path("rand"), "randread", "4k", 1, 1.5, "64M").iops, 250.0, 0.75, 1.03);
  EXPECT_WITHIN(fio(path("rand"), "randread", "4k", 4, 1.5, "64M").iops, 1000.0, 0.75, 1.03);
  // 16 in flight keep the 4 slots busy without gaps, but never beyond what 4 slots deliver.
  EXPECT_WITHIN(fio(path("rand"), "randread", "4k", 16, 1.5, "64M").iops, 1000.0, 0.8, 1.03);
}

// Acceptance 3: a live update changes the speed at once; after stop the directory is back at
// native speed with every byte written through the mount intact.
TEST_F(MountTiming, LiveUpdateThenStopLeavesEveryByte) {
  start(ssd_profile(20, 0, 32));
  Measured slow, fast;
  EXPECT_WITHIN((slow = direct_loop(path("data"), true, false, kMiB, 48 * kMiB, 0.8)).mib_per_s,
                20.0, 0.75, 1.03);
  ASSERT_TRUE(control_->update(dir_, MountSettings{ssd_profile(60, 0, 32)}).ok());
  EXPECT_WITHIN((fast = direct_loop(path("data"), true, false, kMiB, 48 * kMiB, 0.8)).mib_per_s,
                60.0, 0.75, 1.03);
  // Buffered writes through the page cache, then a checksum after stop.
  std::vector<char> payload(8 * kMiB);
  std::mt19937_64 rng(7);
  for (auto& c : payload) c = static_cast<char>(rng());
  FILE* f = fopen(path("buffered").c_str(), "w");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(fwrite(payload.data(), 1, payload.size(), f), payload.size());
  fclose(f);
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  ASSERT_FALSE(is_conditioned_mount(dir_));

  std::vector<char> back(payload.size());
  f = fopen(path("buffered").c_str(), "r");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(fread(back.data(), 1, back.size(), f), back.size());
  fclose(f);
  EXPECT_TRUE(back == payload);
  // Every block of "data" holds what direct_loop wrote there.
  struct stat st;
  ASSERT_EQ(stat(path("data").c_str(), &st), 0);
  // Each loop starts again at offset 0 and wraps at 48 MiB.
  const double longest = std::max(slow.mib_per_s, fast.mib_per_s) * 0.8;
  EXPECT_GE(static_cast<double>(st.st_size), std::min(longest - 2, 47.0) * kMiB);
  f = fopen(path("data").c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::vector<char> block(kMiB);
  for (uint64_t off = 0; off < static_cast<uint64_t>(st.st_size); off += kMiB) {
    ASSERT_EQ(fread(block.data(), 1, kMiB, f), kMiB);
    const char want = static_cast<char>('a' + (off / kMiB) % 26);
    EXPECT_EQ(std::count(block.begin(), block.end(), want), static_cast<long>(kMiB)) << off;
  }
  fclose(f);
  // Native speed again: far above the profile.
  EXPECT_GT(direct_loop(path("data"), true, false, kMiB, 48 * kMiB, 0.3).mib_per_s, 100.0);
}

// The address-space mapping: a file read front to back is sequential on the pretend HDD, and
// alternating between two files seeks every time.
TEST_F(MountTiming, HddSeeksBetweenFilesNotWithinASequentialFile) {
  make_file(path("a"), 8 * kMiB);
  make_file(path("b"), 8 * kMiB);
  Profile hdd = ssd_profile(100, 20000, 1);  // 20 ms mean seek, 100 MiB/s
  hdd.type = DiskType::kHDD;
  start(hdd);
  constexpr size_t kBlock = 64 * 1024;
  constexpr int kReads = 32;
  int a = open(path("a").c_str(), O_RDONLY | O_DIRECT);
  int b = open(path("b").c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, kBlock), 0);
  ASSERT_EQ(pread(a, buf, kBlock, 0), static_cast<ssize_t>(kBlock));  // head to a's region
  const CpuPressure pressure;
  int64_t t0 = monotonic_now_ns();
  for (int i = 1; i <= kReads; ++i)
    ASSERT_EQ(pread(a, buf, kBlock, i * kBlock), static_cast<ssize_t>(kBlock));
  const double sequential_ms = static_cast<double>(monotonic_now_ns() - t0) / 1e6;
  t0 = monotonic_now_ns();
  for (int i = 0; i < kReads; ++i) {
    int fd = i % 2 ? a : b;
    ASSERT_EQ(pread(fd, buf, kBlock, (kReads + 1 + i) * kBlock), static_cast<ssize_t>(kBlock));
  }
  const double alternating_ms = static_cast<double>(monotonic_now_ns() - t0) / 1e6;
  free(buf);
  close(a);
  close(b);
  // Sequential: 32 transfers of 0.625 ms and no seek (host overhead ~1 ms each on a busy VM;
  // one seek alone would cost >= 6.7 ms). Alternating: every read also seeks.
  if (pressure.share() < CpuPressure::kBusy) {  // the host's own overhead grows with its load
    EXPECT_LT(sequential_ms, kReads * 3.0);
  }
  EXPECT_GT(alternating_ms, kReads * (20.0 / 3 + 0.625));
}

// A profile of all zeros adds no delay at all (how we measure our own overhead).
TEST_F(MountTiming, ZeroProfileAddsNoDelay) {
  make_file(path("z"), 16 * kMiB);
  start(ssd_profile(0, 0, 1));
  Measured m = direct_loop(path("z"), false, true, 4096, 16 * kMiB, 0.3);
  EXPECT_GT(m.iops, 1000.0);
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok());
  EXPECT_GT(st->counters.commands[0], 300u);
  EXPECT_EQ(st->counters.mean_added_delay_ns, 0.0);
  EXPECT_GT(st->counters.floor_read_ns, 0.0);
}

}  // namespace
}  // namespace diskcond::mount::testing
