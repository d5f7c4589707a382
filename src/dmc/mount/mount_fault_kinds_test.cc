// Integration, silent corruption, lost writes and bad sectors (issue 15, item 3) through a real
// mount: corruption alters the reply and never the file, a lost write is acknowledged and not
// stored (and only where a rule says so), a bad sector fails reads until a write covers it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/fault_rules.h"
#include "dmc/mount/mount_fault_test_support.h"
#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

using MountFaultKinds = MountTest;

constexpr size_t kBlock = 4096;

// The bytes of a pread, or "E<errno>".
std::string pread_text(const std::string& file, off_t offset, size_t size) {
  const int fd = open(file.c_str(), O_RDONLY);
  if (fd < 0) return "E" + std::to_string(errno);
  std::string buf(size, 0);
  const ssize_t n = pread(fd, buf.data(), size, offset);
  const int err = errno;
  close(fd);
  if (n < 0) return "E" + std::to_string(err);
  buf.resize(static_cast<size_t>(n));
  return buf;
}

ssize_t pwrite_text(const std::string& file, const std::string& data, off_t offset) {
  const int fd = open(file.c_str(), O_WRONLY);
  if (fd < 0) return -1;
  const ssize_t n = pwrite(fd, data.data(), data.size(), offset);
  close(fd);
  return n;
}

TEST_F(MountFaultKinds, CorruptionAltersTheReplyAndNeverTheFile) {
  const std::string pristine(2 * kBlock, 'a');
  write_file(path("c.bin"), pristine);
  start(ssd_profile(0), CacheMode::kNoCache);  // every read reaches the daemon
  ASSERT_TRUE(control_->fault_add(dir_, rule("path=c.bin ops=read corrupt seed=5")).ok());
  const std::string got = pread_text(path("c.bin"), 0, kBlock);
  // The engine's first corruption for seed 5, applied here.
  FaultDecision d;
  d.action = FaultAction::kCorrupt;
  uint64_t state = 5 ^ 0x9E3779B97F4A7C15ULL;
  d.corrupt_seed = splitmix64(state);
  std::string expected(kBlock, 'a');
  corrupt_reply(d, 0, expected);
  EXPECT_EQ(got, expected);
  int flipped = 0;
  for (size_t i = 0; i < kBlock; ++i)
    flipped += __builtin_popcount(static_cast<unsigned char>(got[i] ^ 'a'));
  EXPECT_EQ(flipped, 8) << "one bit in each of the read's 8 sectors";

  ASSERT_TRUE(control_->fault_clear(dir_).ok());
  ASSERT_TRUE(control_->fault_add(dir_, rule("path=c.bin ops=read range=1k-2k corrupt=zero")).ok());
  EXPECT_EQ(pread_text(path("c.bin"), 0, kBlock),
            std::string(1024, 'a') + std::string(1024, '\0') + std::string(2048, 'a'));
  ASSERT_TRUE(control_->fault_clear(dir_).ok());
  EXPECT_EQ(pread_text(path("c.bin"), 0, 2 * kBlock), pristine);
  auto status = control_->status(dir_);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->counters.faults_injected, 2u);
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_EQ(read_all(path("c.bin")), pristine);
}

TEST_F(MountFaultKinds, ALostWriteIsAcknowledgedAndNotStoredOnlyWhereARuleSays) {
  write_file(path("l.bin"), std::string(kBlock, 'a'));
  write_file(path("kept.bin"), std::string(kBlock, 'a'));
  start(ssd_profile(0), CacheMode::kNoCache);
  ASSERT_TRUE(control_->fault_add(dir_, rule("path=l.bin ops=write lost-write every=2")).ok());
  const std::string b(kBlock, 'b'), c(kBlock, 'c');
  EXPECT_EQ(pwrite_text(path("l.bin"), b, 0), static_cast<ssize_t>(kBlock));  // stored
  EXPECT_EQ(pwrite_text(path("l.bin"), c, 0), static_cast<ssize_t>(kBlock));  // lost
  EXPECT_EQ(pread_text(path("l.bin"), 0, kBlock), b);
  EXPECT_EQ(pwrite_text(path("kept.bin"), c, 0), static_cast<ssize_t>(kBlock));
  EXPECT_EQ(pread_text(path("kept.bin"), 0, kBlock), c);
  auto log = control_->fault_log(dir_);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].action, FaultAction::kLostWrite);
  EXPECT_EQ((*log)[0].path, "l.bin");
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_EQ(read_all(path("l.bin")), b);
  EXPECT_EQ(read_all(path("kept.bin")), c);
}

TEST_F(MountFaultKinds, BadSectorsFailReadsUntilAWriteCoversThem) {
  write_file(path("d.img"), std::string(4 * kBlock, 'a'));
  write_file(path("e.img"), std::string(4 * kBlock, 'a'));
  start(ssd_profile(0), CacheMode::kNoCache);
  auto id = control_->fault_add(dir_, rule("path=*.img bad=4096-8192"));
  ASSERT_TRUE(id.ok()) << id.error();
  const std::string eio = "E" + std::to_string(EIO);
  EXPECT_EQ(pread_text(path("d.img"), 0, kBlock), std::string(kBlock, 'a'));
  EXPECT_EQ(pread_text(path("d.img"), kBlock, kBlock), eio);
  EXPECT_EQ(pread_text(path("d.img"), 0, 2 * kBlock), eio);
  EXPECT_EQ(pwrite_text(path("d.img"), std::string(kBlock, 'r'), kBlock),
            static_cast<ssize_t>(kBlock));
  EXPECT_EQ(pread_text(path("d.img"), kBlock, kBlock), std::string(kBlock, 'r'));
  EXPECT_EQ(pread_text(path("e.img"), kBlock, kBlock), eio) << "another file keeps its own";
  auto list = control_->fault_list(dir_);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->rules.size(), 1u);
  EXPECT_EQ(list->rules[0].repaired, kBlock);
  EXPECT_EQ(list->rules[0].fired, 3u);
  auto log = control_->fault_log(dir_);
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 3u);
  EXPECT_EQ((*log)[0].action, FaultAction::kBadSectors);
  EXPECT_EQ((*log)[0].error, EIO);
  ASSERT_TRUE(control_->fault_remove(dir_, *id).ok());
  EXPECT_EQ(pread_text(path("e.img"), kBlock, kBlock), std::string(kBlock, 'a'));
}

}  // namespace
}  // namespace diskcond::mount::testing
