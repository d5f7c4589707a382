// Integration, error rules (issue 15, item 3; core/fault_rules.h) through a real mount: the
// handlers fail or shorten the requests a rule picks before the backing operation, count them,
// and change live without losing an acknowledged byte; only root may change them.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "core/fault_rules.h"
#include "dmc/mount/mount_fault_test_support.h"
#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

using MountErrorRules = MountTest;

constexpr size_t kBlock = 4096;

// "." for each read of [0, 4 KiB) that succeeded, "F" for each that failed with `error`, "?"
// for anything else.
std::string reads(const std::string& file, int n, int error = EIO) {
  const int fd = open(file.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0) << file;
  std::string out, buf(kBlock, 0);
  for (int i = 0; i < n; ++i) {
    const ssize_t got = pread(fd, buf.data(), kBlock, 0);
    out += got == static_cast<ssize_t>(kBlock) ? '.' : (got < 0 && errno == error ? 'F' : '?');
  }
  close(fd);
  return out;
}

TEST_F(MountErrorRules, EverySecondReadOfADatabaseFailsFromTheStart) {
  write_file(path("x.db"), std::string(kBlock, 'd'));
  write_file(path("x.txt"), std::string(kBlock, 't'));
  MountSettings settings{ssd_profile(0), CacheMode::kNoCache};  // every read reaches the daemon
  settings.faults = {rule("path=*.db ops=read error=EIO every=2")};
  auto s = control_->start(dir_, settings);
  ASSERT_TRUE(s.ok()) << s.error();

  EXPECT_EQ(reads(path("x.db"), 8), ".F.F.F.F");
  EXPECT_EQ(reads(path("x.txt"), 4), "....");
  auto report = control_->fault_list(dir_);
  ASSERT_TRUE(report.ok()) << report.error();
  ASSERT_EQ(report->rules.size(), 1u);
  EXPECT_EQ(report->rules[0].id, 1u);
  EXPECT_EQ(report->rules[0].matched, 8u);
  EXPECT_EQ(report->rules[0].fired, 4u);
  EXPECT_EQ(report->injected, 4u);
  auto status = control_->status(dir_);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->counters.fault_rules, 1u);
  EXPECT_EQ(status->counters.faults_injected, 4u);
  auto log = control_->fault_log(dir_);
  ASSERT_TRUE(log.ok()) << log.error();
  ASSERT_EQ(log->size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const FaultEvent& e = (*log)[i];
    EXPECT_EQ(e.seq, i + 1);
    EXPECT_EQ(e.op, FaultOp::kRead);
    EXPECT_EQ(e.path, "x.db");
    EXPECT_EQ(e.offset, 0u);
    EXPECT_EQ(e.length, kBlock);
    EXPECT_EQ(e.error, EIO);
    EXPECT_EQ(e.rule_id, 1u);
    EXPECT_EQ(e.pid, getpid());
  }
}

TEST_F(MountErrorRules, AFailedWriteNeverReachesTheBackingFileAndAShortOneWritesHalf) {
  write_file(path("data.bin"), std::string(2 * kBlock, 'a'));
  write_file(path("short.bin"), "");
  start(ssd_profile(0), CacheMode::kNoCache);
  ASSERT_TRUE(control_->fault_add(dir_, rule("path=data.bin ops=write error=ENOSPC")).ok());
  ASSERT_TRUE(control_->fault_add(dir_, rule("path=short.bin ops=write short")).ok());

  const std::string b(kBlock, 'b');
  int fd = open(path("data.bin").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  errno = 0;
  EXPECT_EQ(pwrite(fd, b.data(), kBlock, 0), -1);
  EXPECT_EQ(errno, ENOSPC);
  close(fd);
  fd = open(path("short.bin").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(pwrite(fd, b.data(), kBlock, 0), static_cast<ssize_t>(kBlock / 2));
  close(fd);

  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_EQ(read_all(path("data.bin")), std::string(2 * kBlock, 'a'));
  EXPECT_EQ(read_all(path("short.bin")), std::string(kBlock / 2, 'b'));
}

TEST_F(MountErrorRules, NamespaceRulesRefuseBeforeAnythingChanges) {
  ASSERT_EQ(mkdir(path("keep").c_str(), 0755), 0);
  write_file(path("keep/a"), "x");
  start(ssd_profile(0));
  ASSERT_TRUE(control_->fault_add(dir_, rule("path=keep/* ops=unlink,rename error=EROFS")).ok());
  ASSERT_TRUE(control_->fault_add(dir_, rule("path=quota* ops=mkdir,create error=EDQUOT")).ok());
  errno = 0;
  EXPECT_EQ(unlink(path("keep/a").c_str()), -1);
  EXPECT_EQ(errno, EROFS);
  EXPECT_EQ(rename(path("keep/a").c_str(), path("b").c_str()), -1);
  EXPECT_EQ(errno, EROFS);
  EXPECT_EQ(mkdir(path("quota1").c_str(), 0755), -1);
  EXPECT_EQ(errno, EDQUOT);
  EXPECT_EQ(open(path("quota2").c_str(), O_CREAT | O_WRONLY, 0644), -1);
  EXPECT_EQ(errno, EDQUOT);
  EXPECT_EQ(mkdir(path("other").c_str(), 0755), 0);
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_EQ(access(path("keep/a").c_str(), F_OK), 0);
  EXPECT_NE(access(path("quota1").c_str(), F_OK), 0);
  EXPECT_NE(access(path("quota2").c_str(), F_OK), 0);
}

TEST_F(MountErrorRules, AProbabilityRuleGivesTheSameFaultsForTheSameSeed) {
  write_file(path("p.db"), std::string(kBlock, 'p'));
  start(ssd_profile(0), CacheMode::kNoCache);
  const FaultRule seeded = rule("path=p.db ops=read error=EIO p=0.4 seed=20261201");
  ASSERT_TRUE(control_->fault_add(dir_, seeded).ok());
  const std::string first = reads(path("p.db"), 60);
  ASSERT_TRUE(control_->fault_clear(dir_).ok());
  EXPECT_EQ(reads(path("p.db"), 10), "..........");
  ASSERT_TRUE(control_->fault_add(dir_, seeded).ok());
  EXPECT_EQ(reads(path("p.db"), 60), first);
  // The engine's sequence for that seed, drawn here.
  uint64_t state = 20261201;
  std::string expected;
  for (int i = 0; i < 60; ++i) expected += uniform01(state) < 0.4 ? 'F' : '.';
  EXPECT_EQ(first, expected);
  auto report = control_->fault_list(dir_);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->rules.size(), 1u);
  EXPECT_EQ(report->rules[0].id, 2u) << "ids are never reused";
  EXPECT_EQ(report->injected,
            2 * static_cast<uint64_t>(std::count(first.begin(), first.end(), 'F')));
}

// Rules added and cleared while a writer runs: failed writes are retried by the writer, and
// every write acknowledged is on the backing file afterwards.
TEST_F(MountErrorRules, AddingAndClearingWhileWritingLosesNoAcknowledgedByte) {
  start(ssd_profile(0));
  const int fd = open(path("log.bin").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  std::atomic<bool> stop{false};
  std::atomic<size_t> acked{0}, failures{0};
  std::thread writer([&] {
    std::string block(kBlock, 0);
    for (size_t i = 0; !stop;) {
      block.assign(kBlock, static_cast<char>('a' + i % 26));
      if (pwrite(fd, block.data(), kBlock, static_cast<off_t>(i * kBlock)) ==
          static_cast<ssize_t>(kBlock)) {
        acked = ++i;
      } else {
        ++failures;  // the same block again
      }
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(control_->fault_add(dir_, rule("path=log.bin ops=write error=EIO every=3")).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(control_->fault_clear(dir_).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a write decided before the clear
  const size_t failures_at_clear = failures;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop = true;
  writer.join();
  EXPECT_EQ(fsync(fd), 0);
  close(fd);
  EXPECT_GT(failures_at_clear, 0u);
  EXPECT_EQ(failures.load(), failures_at_clear) << "no fault after clear";
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  const std::string content = read_all(path("log.bin"));
  ASSERT_GE(content.size(), acked * kBlock);
  for (size_t i = 0; i < acked; ++i) {
    ASSERT_EQ(content.substr(i * kBlock, kBlock), std::string(kBlock, 'a' + i % 26))
        << "block " << i;
  }
}

TEST_F(MountErrorRules, OnlyRootChangesTheRulesAnyoneListsThem) {
  start(ssd_profile(0));
  const std::string dir = dir_;
  const FaultRule eio = rule("ops=read error=EIO");
  const int code = run_as(kNobody, kNogroup, [dir, eio] {
    auto control = make_fuse_mount_control();
    auto added = control->fault_add(dir, eio);
    if (added.ok() || added.error().find("only root") == std::string::npos) return 1;
    if (control->fault_clear(dir).ok() || control->fault_remove(dir, 1).ok()) return 2;
    return control->fault_list(dir).ok() ? 0 : 3;
  });
  EXPECT_EQ(code, 0);
  auto report = control_->fault_list(dir_);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->rules.empty());
  EXPECT_FALSE(control_->fault_remove(dir_, 7).ok());
}

}  // namespace
}  // namespace diskcond::mount::testing
