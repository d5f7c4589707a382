#include "rawio/runner.h"

#include <gtest/gtest.h>

#include <numeric>

#include "core/clock.h"
#include "rawio/test_util.h"

namespace diskcond::rawio {
namespace {

Target file_target(const std::string& path, uint64_t size, bool direct = true) {
  Target t;
  t.name = path;
  t.io_path = path;
  t.kind = TargetKind::kRegularFile;
  t.size_bytes = size;
  t.sector_bytes = 512;
  t.direct = direct;
  return t;
}

TestSpec small_spec(TestKind kind, uint64_t area, uint64_t count) {
  TestSpec spec;
  spec.kind = kind;
  spec.transfer_bytes = 4096;
  spec.workers = 4;
  spec.area_bytes = area;
  spec.transfer_count = count;
  spec.time_limit_ns = 5'000'000'000;
  return spec;
}

uint64_t interval_transfers(const RunResult& r) {
  uint64_t sum = 0;
  for (const auto& s : r.intervals) sum += s.transfers;
  return sum;
}

TEST(RawioRunner, StopsAtTheTransferCountAndAccountsForEveryTransfer) {
  testing::ScratchDir dir;
  testing::write_zero_file(dir.file("t"), 1 << 20);
  RunOptions options;
  options.engine = find_engine("null");
  auto r = run_test(file_target(dir.file("t"), 1 << 20),
                    small_spec(TestKind::kRandomRead, 1 << 20, 10001), options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->transfers, 10001u);
  EXPECT_EQ(r->bytes, 10001u * 4096);
  EXPECT_EQ(r->latency.count(), 10001u);
  EXPECT_EQ(interval_transfers(*r), 10001u);
  EXPECT_EQ(r->stopped_by, StopReason::kCount);
  EXPECT_GT(r->elapsed_ns, 0);
  EXPECT_EQ(r->engine, "null");
}

TEST(RawioRunner, StopsAtTheTimeLimitWhenThatComesFirst) {
  testing::ScratchDir dir;
  testing::write_zero_file(dir.file("t"), 1 << 20);
  RunOptions options;
  options.engine = find_engine("null");
  TestSpec spec = small_spec(TestKind::kSequentialRead, 1 << 20, UINT64_MAX / 2);
  spec.time_limit_ns = 300'000'000;
  auto r = run_test(file_target(dir.file("t"), 1 << 20), spec, options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->stopped_by, StopReason::kTimeLimit);
  EXPECT_GE(r->elapsed_ns, 300'000'000);
  EXPECT_LT(r->elapsed_ns, 600'000'000);
  EXPECT_GT(r->transfers, 1000u);
  EXPECT_EQ(interval_transfers(*r), r->transfers);
}

TEST(RawioRunner, AWarmUpRunsBeforeTheMeasuredTimeAndIsNotCounted) {
  testing::ScratchDir dir;
  testing::write_zero_file(dir.file("t"), 1 << 20);
  RunOptions options;
  options.engine = find_engine("null");
  int64_t first_progress_ns = -1;
  options.on_progress = [&](const Progress& p) {
    if (first_progress_ns < 0) first_progress_ns = p.elapsed_ns;
  };
  TestSpec spec = small_spec(TestKind::kRandomRead, 1 << 20, kUnlimitedTransfers);
  spec.warmup_ns = 1'200'000'000;
  spec.time_limit_ns = 1'100'000'000;
  const int64_t before = monotonic_now_ns();
  auto r = run_test(file_target(dir.file("t"), 1 << 20), spec, options);
  const int64_t wall = monotonic_now_ns() - before;
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->stopped_by, StopReason::kTimeLimit);
  EXPECT_GE(wall, 2'300'000'000);  // warm-up and measured time
  // The elapsed time, the intervals and the progress start after the warm-up.
  EXPECT_GE(r->elapsed_ns, 1'100'000'000);
  EXPECT_LT(r->elapsed_ns, 1'700'000'000);
  EXPECT_LE(r->intervals.size(), 2u);
  EXPECT_EQ(interval_transfers(*r), r->transfers);
  EXPECT_EQ(r->latency.count(), r->transfers);
  EXPECT_GE(first_progress_ns, 1'000'000'000);
  EXPECT_LT(first_progress_ns, 1'100'000'000);
}

TEST(RawioRunner, SequentialWriteCoversEveryBlockOfTheArea) {
  testing::ScratchDir dir;
  const uint64_t area = 64 * 4096;
  testing::write_zero_file(dir.file("t"), area + 4096);
  for (const EngineInfo* engine : testing::data_engines()) {
    testing::write_zero_file(dir.file("t"), area + 4096);
    RunOptions options;
    options.engine = engine;
    TestSpec spec = small_spec(TestKind::kSequentialWrite, area, area / 4096);
    spec.iodepth = 4;
    spec.submit_batch = 3;  // batches of 3 and a remainder of 1
    auto r = run_test(file_target(dir.file("t"), area + 4096), spec, options);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->transfers, 64u);
    auto data = testing::read_file(dir.file("t"));
    for (uint64_t block = 0; block < 64; ++block) {
      bool written = false;
      for (uint64_t i = 0; i < 4096 && !written; i += 8) written = data[block * 4096 + i] != 0;
      EXPECT_TRUE(written) << engine->name << " block " << block;
    }
    for (uint64_t i = area; i < area + 4096; ++i) ASSERT_EQ(data[i], 0) << "outside the area";
  }
}

// Which 4 KiB blocks of the file hold anything but zeros.
std::vector<bool> written_blocks(const std::string& path) {
  auto data = testing::read_file(path);
  std::vector<bool> written(data.size() / 4096);
  for (size_t i = 0; i < data.size(); ++i) written[i / 4096] = written[i / 4096] || data[i] != 0;
  return written;
}

TEST(RawioRunner, RandomWritesGoWhereTheSeedSays) {
  testing::ScratchDir dir;
  const uint64_t area = 256 * 4096;
  auto run = [&](uint64_t seed) {
    testing::write_zero_file(dir.file("t"), area);
    TestSpec spec = small_spec(TestKind::kRandomWrite, area, 24);
    spec.workers = 3;
    spec.seed = seed;
    auto r = run_test(file_target(dir.file("t"), area), spec, RunOptions{});
    EXPECT_TRUE(r.ok()) << r.error();
    return written_blocks(dir.file("t"));
  };
  auto first = run(11);
  EXPECT_EQ(run(11), first);
  EXPECT_NE(run(12), first);
  size_t count = 0;
  for (bool b : first) count += b;
  EXPECT_GE(count, 20u);  // 24 draws from 256 blocks: a few may repeat
  EXPECT_LE(count, 24u);
}

TEST(RawioRunner, RandomReadsOnARealFileWithQueueDepth) {
  testing::ScratchDir dir;
  testing::write_pattern_file(dir.file("t"), 1 << 20);
  RunOptions options;
  options.engine = find_engine("io_uring");
  TestSpec spec = small_spec(TestKind::kRandomRead, 1 << 20, 2000);
  spec.iodepth = 8;
  auto r = run_test(file_target(dir.file("t"), 1 << 20), spec, options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->transfers, 2000u);
  EXPECT_EQ(r->iodepth, 8u);
  EXPECT_GT(r->latency.min_ns(), 0u);
  EXPECT_GE(r->cpu.user_ns + r->cpu.sys_ns, 0);
}

TEST(RawioRunner, ShortReadBeyondTheEndIsAnError) {
  testing::ScratchDir dir;
  testing::write_zero_file(dir.file("t"), 64 * 1024);
  // Claim the file is larger than it is: sequential reads run off its end.
  auto r = run_test(file_target(dir.file("t"), 1 << 20, false),
                    small_spec(TestKind::kSequentialRead, 1 << 20, 256), RunOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("short read"), std::string::npos) << r.error();
}

TEST(RawioRunner, CancelStopsTheTest) {
  testing::ScratchDir dir;
  testing::write_zero_file(dir.file("t"), 1 << 20);
  std::atomic<bool> cancel{true};
  RunOptions options;
  options.engine = find_engine("null");
  options.cancel = &cancel;
  TestSpec spec = small_spec(TestKind::kRandomRead, 1 << 20, UINT64_MAX / 2);
  auto r = run_test(file_target(dir.file("t"), 1 << 20), spec, options);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->stopped_by, StopReason::kCancelled);
  EXPECT_LT(r->elapsed_ns, 2'000'000'000);
}

TEST(RawioRunner, RefusesSpecsThatDoNotFit) {
  Target t = file_target("/nonexistent", 1 << 20);
  TestSpec spec = small_spec(TestKind::kSequentialRead, 1 << 20, 10);
  spec.transfer_bytes = 1000;  // not a multiple of 512 with O_DIRECT
  EXPECT_FALSE(validate_spec(t, spec).ok());
  spec = small_spec(TestKind::kSequentialRead, 2 << 20, 10);
  EXPECT_NE(validate_spec(t, spec).error().find("larger than"), std::string::npos);
  spec = small_spec(TestKind::kSequentialRead, 8192, 10);  // 4 workers need 4 transfers
  EXPECT_NE(validate_spec(t, spec).error().find("too small"), std::string::npos);
  spec = small_spec(TestKind::kRandomRead, 8192, 10);
  EXPECT_TRUE(validate_spec(t, spec).ok());
  auto r = run_test(t, small_spec(TestKind::kRandomRead, 8192, 10), RunOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("cannot open /nonexistent"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace diskcond::rawio
