// Integration, stalls (issue 15, item 2; core/stall_timeline.h, mount/device_clock.h) through a
// real mount: every conditioned reply waits out a stall, one until released waits for
// `dmc fault release`, and stalls and error rules added and removed while a writer and a
// verifier run lose no byte.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "core/fault_rules.h"
#include "dmc/mount/mount_fault_test_support.h"
#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

using MountStall = MountTest;
using std::chrono::milliseconds;

constexpr size_t kBlock = 4096;
constexpr int64_t kMs = 1'000'000;

// Milliseconds one 4 KiB pread of `fd` took; -1 when it failed.
double timed_read_ms(int fd) {
  std::string buf(kBlock, 0);
  const int64_t start = monotonic_now_ns();
  if (pread(fd, buf.data(), kBlock, 0) != static_cast<ssize_t>(kBlock)) return -1;
  return static_cast<double>(monotonic_now_ns() - start) / 1e6;
}

TEST_F(MountStall, AFixedStallHoldsEveryReplyForItsLength) {
  write_file(path("x"), std::string(kBlock, 'x'));
  start(ssd_profile(0), CacheMode::kNoCache);  // no model time: what a read waits is the stall's
  const int fd = open(path("x").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_GE(timed_read_ms(fd), 0);
  const int64_t before_add = monotonic_now_ns();
  auto id = control_->fault_add(dir_, rule("stall=300ms"));
  ASSERT_TRUE(id.ok()) << id.error();
  ASSERT_GE(timed_read_ms(fd), 0);
  const double held_ms = static_cast<double>(monotonic_now_ns() - before_add) / 1e6;
  EXPECT_GE(held_ms, 300.0) << "the read arrived during the stall: its reply waits for the end";
  EXPECT_LT(held_ms, 1500.0);
  const double after_ms = timed_read_ms(fd);
  EXPECT_GE(after_ms, 0);
  EXPECT_LT(after_ms, 200.0) << "the stall is over";
  close(fd);

  auto status = control_->status(dir_);
  ASSERT_TRUE(status.ok()) << status.error();
  EXPECT_EQ(status->counters.stalled_ns, static_cast<uint64_t>(300 * kMs));
  EXPECT_EQ(status->counters.stall_active, 0u);
  EXPECT_EQ(status->counters.faults_injected, 1u);
  auto log = control_->fault_log(dir_);
  ASSERT_TRUE(log.ok()) << log.error();
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].action, FaultAction::kStall);
  EXPECT_EQ((*log)[0].length, static_cast<uint64_t>(300 * kMs));
  EXPECT_EQ((*log)[0].rule_id, *id);
  auto list = control_->fault_list(dir_);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->rules.size(), 1u);
  EXPECT_EQ(list->rules[0].fired, 1u);
}

TEST_F(MountStall, AStallUntilReleasedHoldsRepliesUntilRelease) {
  write_file(path("x"), std::string(kBlock, 'x'));
  start(ssd_profile(0), CacheMode::kNoCache);
  const int fd = open(path("x").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(control_->fault_add(dir_, rule("stall=unbounded")).ok());
  std::atomic<bool> done{false};
  std::atomic<double> took{-2};
  std::atomic<int64_t> done_at{0};
  std::thread reader([&] {
    took = timed_read_ms(fd);
    done_at = monotonic_now_ns();
    done = true;
  });
  std::this_thread::sleep_for(milliseconds(400));
  EXPECT_FALSE(done.load()) << "held by the stall";
  auto status = control_->status(dir_);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->counters.stall_active, 1u);
  const int64_t release_asked = monotonic_now_ns();
  auto released = control_->fault_release(dir_);
  ASSERT_TRUE(released.ok()) << released.error();
  EXPECT_EQ(*released, 1u);
  reader.join();
  EXPECT_GE(done_at.load(), release_asked) << "answered only once released";
  EXPECT_GT(took.load(), 0.0);
  EXPECT_LT(took.load(), 3000.0);
  EXPECT_GE(timed_read_ms(fd), 0);
  close(fd);
  released = control_->fault_release(dir_);
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(*released, 0u) << "nothing in progress any more";
  status = control_->status(dir_);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->counters.stall_active, 0u);
  EXPECT_GE(status->counters.stalled_ns, static_cast<uint64_t>(400 * kMs));
}

TEST_F(MountStall, OnlyRootReleases) {
  start(ssd_profile(0));
  const std::string dir = dir_;
  EXPECT_EQ(
      run_as(kNobody, kNogroup,
             [dir] {
               auto released = make_fuse_mount_control()->fault_release(dir);
               return !released.ok() && released.error().find("only root") != std::string::npos ? 0
                                                                                                : 1;
             }),
      0);
}

// The "done when": a stall and an error rule added and removed on a live mount while a
// writer appends blocks (retrying a failed one) and a verifier reads back acknowledged ones. No
// acknowledged byte is lost or wrong, in the mount or in the backing file afterwards.
TEST_F(MountStall, StallsAndErrorRulesComeAndGoWithoutLosingAByte) {
  start(ssd_profile(200, 50), CacheMode::kNoCache);
  const int wfd = open(path("log.bin").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(wfd, 0);
  const int rfd = open(path("log.bin").c_str(), O_RDONLY);
  ASSERT_GE(rfd, 0);
  auto block_of = [](size_t i) { return std::string(kBlock, static_cast<char>('a' + i % 26)); };
  std::atomic<bool> stop{false};
  std::atomic<size_t> acked{0}, failures{0}, verified{0}, mismatches{0};
  std::thread writer([&] {
    for (size_t i = 0; !stop;) {
      const std::string block = block_of(i);
      if (pwrite(wfd, block.data(), kBlock, static_cast<off_t>(i * kBlock)) ==
          static_cast<ssize_t>(kBlock)) {
        acked = ++i;
      } else {
        ++failures;  // the same block again
      }
    }
  });
  std::thread verifier([&] {
    std::string buf(kBlock, 0);
    for (size_t n = 0; !stop; ++n) {
      const size_t done = acked;
      if (done == 0) continue;
      const size_t i = (n * 7919) % done;
      if (pread(rfd, buf.data(), kBlock, static_cast<off_t>(i * kBlock)) ==
          static_cast<ssize_t>(kBlock)) {
        ++verified;
        if (buf != block_of(i)) ++mismatches;
      }
    }
  });
  auto pause = [](int ms) { std::this_thread::sleep_for(milliseconds(ms)); };
  pause(100);
  auto error_id = control_->fault_add(dir_, rule("path=log.bin ops=write error=EIO every=3"));
  ASSERT_TRUE(error_id.ok());
  pause(100);
  auto periodic = control_->fault_add(dir_, rule("stall=30ms period=100ms"));
  ASSERT_TRUE(periodic.ok());
  pause(300);
  const size_t acked_before_hold = acked;
  ASSERT_TRUE(control_->fault_add(dir_, rule("stall=unbounded")).ok());
  pause(50);  // what was in flight at the stall is held too
  const size_t acked_in_hold = acked;
  pause(200);
  EXPECT_EQ(acked.load(), acked_in_hold) << "nothing is acknowledged while the device is held";
  ASSERT_TRUE(control_->fault_release(dir_).ok());
  ASSERT_TRUE(control_->fault_remove(dir_, *error_id).ok());
  ASSERT_TRUE(control_->fault_remove(dir_, *periodic).ok());
  pause(20);  // a write decided before the removal
  const size_t failures_after_remove = failures;
  pause(150);
  stop = true;
  writer.join();
  verifier.join();
  EXPECT_GT(failures_after_remove, 0u);
  EXPECT_EQ(failures.load(), failures_after_remove) << "no error after the rule went";
  EXPECT_GT(acked.load(), acked_before_hold);
  EXPECT_GT(verified.load(), 0u);
  EXPECT_EQ(mismatches.load(), 0u);
  close(rfd);
  EXPECT_EQ(fsync(wfd), 0);
  close(wfd);
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  const std::string content = read_all(path("log.bin"));
  ASSERT_GE(content.size(), acked * kBlock);
  for (size_t i = 0; i < acked; ++i)
    ASSERT_EQ(content.substr(i * kBlock, kBlock), block_of(i)) << "block " << i;
}

}  // namespace
}  // namespace diskcond::mount::testing
