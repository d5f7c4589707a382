// The crash recorder on a plain directory (no mount): the durability events the write-back model
// would send are sent by hand, then crash() restores the bytes and undoes namespace changes.
#include "dmc/mount/crash_recorder.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_support/scratch_dir.h"

namespace diskcond::mount {
namespace {

std::string read_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class CrashRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_fd_ = open(dir_.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(dir_fd_, 0);
  }
  void TearDown() override { close(dir_fd_); }
  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }

  test_support::ScratchDir dir_{"crash_recorder_test"};
  int dir_fd_ = -1;
};

TEST_F(CrashRecorderTest, AnUnsentWriteGoesBackASentOneStays) {
  std::ofstream(path("f")) << "AAAABBBB";
  const int fd = open(path("f").c_str(), O_WRONLY | O_APPEND);  // the caller's: append-only
  ASSERT_GE(fd, 0);
  CrashRecorder r(1 << 20);
  const uint64_t first = r.before_write(1, fd, 0, 4, 8, 0);
  ASSERT_NE(first, 0u);
  ASSERT_EQ(pwrite(open(path("f").c_str(), O_WRONLY), "xxxx", 4, 0), 4);
  r.log().dirtied(1, first);
  r.log().sent(1, 100);                                         // durable at 100
  const uint64_t second = r.before_write(1, fd, 4, 6, 8, 200);  // grows the file to 10
  ASSERT_EQ(pwrite(open(path("f").c_str(), O_WRONLY), "yyyyyy", 6, 4), 6);
  r.log().dirtied(1, second);
  const CrashReport report = r.crash(300, Tear::kNone, 0);
  EXPECT_EQ(read_file(path("f")), "xxxxBBBB");
  EXPECT_EQ(report.files, 1u);
  EXPECT_EQ(report.lost_bytes, 6u);
  EXPECT_TRUE(report.errors.empty());
  close(fd);
}

TEST_F(CrashRecorderTest, OverTheLimitPastTheDirtyLimit) {
  std::ofstream(path("f")) << "AAAA";
  const int fd = open(path("f").c_str(), O_RDWR);
  CrashRecorder r(3);
  EXPECT_FALSE(r.over_limit());
  r.log().dirtied(1, r.before_write(1, fd, 0, 4, 4, 0));
  EXPECT_TRUE(r.over_limit());  // the mount then makes everything durable
  r.log().sent(1, 10);
  r.prune(10);
  EXPECT_FALSE(r.over_limit());
  close(fd);
}

TEST_F(CrashRecorderTest, AnUncommittedUnlinkIsBroughtBackACommittedOneIsNot) {
  std::ofstream(path("a")) << "first";
  std::ofstream(path("b")) << "second";
  chmod(path("a").c_str(), 0640);
  CrashRecorder r(1 << 20);
  const uint64_t a = r.before_remove(dir_fd_, "a", 0);
  ASSERT_EQ(unlink(path("a").c_str()), 0);
  r.log().journaled(a);
  r.log().committed(50);  // durable at 50
  const uint64_t b = r.before_remove(dir_fd_, "b", 60);
  ASSERT_EQ(unlink(path("b").c_str()), 0);
  r.log().journaled(b);
  const CrashReport report = r.crash(100, Tear::kNone, 0);
  EXPECT_FALSE(std::filesystem::exists(path("a")));
  EXPECT_EQ(read_file(path("b")), "second");
  EXPECT_EQ(report.restored, 1u);
  struct stat st;
  ASSERT_EQ(stat(path("b").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST_F(CrashRecorderTest, ARenameOverAFileIsRenamedBackAndTheFileBroughtBack) {
  std::ofstream(path("new")) << "new";
  std::ofstream(path("old")) << "old";
  chmod(path("old").c_str(), 0600);
  CrashRecorder r(1 << 20);
  const uint64_t token = r.before_rename(dir_fd_, "new", dir_fd_, "old", 0);
  ASSERT_NE(token, 0u);
  ASSERT_EQ(rename(path("new").c_str(), path("old").c_str()), 0);
  r.log().journaled(token);
  const CrashReport report = r.crash(10, Tear::kNone, 0);
  EXPECT_EQ(read_file(path("new")), "new");
  EXPECT_EQ(read_file(path("old")), "old");
  struct stat st;
  ASSERT_EQ(stat(path("old").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(report.restored, 2u);
  EXPECT_TRUE(report.errors.empty());
}

TEST_F(CrashRecorderTest, ACreationIsNotUndoneWhereTheNameIsAnotherInodeNow) {
  std::ofstream(path("c")) << "created";
  struct stat st;
  ASSERT_EQ(stat(path("c").c_str(), &st), 0);
  CrashRecorder r(1 << 20);
  r.log().journaled(r.after_create(dir_fd_, "c", st.st_dev, st.st_ino, false, 0));
  ASSERT_EQ(unlink(path("c").c_str()), 0);
  std::ofstream(path("c")) << "someone else's";  // not through the recorder
  const CrashReport report = r.crash(10, Tear::kNone, 0);
  EXPECT_EQ(read_file(path("c")), "someone else's");
  EXPECT_EQ(report.removed, 0u);
}

}  // namespace
}  // namespace diskcond::mount
