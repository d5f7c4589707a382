// file_extents: the backing file's extents where the file system has FIEMAP (ext4 under /tmp on
// the development machines), nothing where it has none (tmpfs).
#include "dmc/mount/fiemap.h"

#include <fcntl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace diskcond::mount {
namespace {

constexpr long kTmpfsMagic = 0x01021994;

// A file of `bytes` written and fsynced (so the allocation is done) in `dir`; -1 if impossible.
int make_file(const std::string& dir, size_t bytes, std::string& path) {
  path = dir + "/fiemap-test-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) return -1;
  const std::vector<char> data(bytes, 'x');
  if (write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size()) || fsync(fd) != 0) {
    close(fd);
    unlink(path.c_str());
    return -1;
  }
  return fd;
}

TEST(FileExtents, CoverAWrittenFileWhereTheFileSystemHasFiemap) {
  std::string path;
  const int fd = make_file("/tmp", 1 << 20, path);
  ASSERT_GE(fd, 0);
  struct statfs fs;
  ASSERT_EQ(fstatfs(fd, &fs), 0);
  auto extents = file_extents(fd);
  close(fd);
  unlink(path.c_str());
  if (fs.f_type == kTmpfsMagic) GTEST_SKIP() << "/tmp is tmpfs here: no FIEMAP";
  if (!extents) GTEST_SKIP() << "/tmp's file system has no FIEMAP";
  uint64_t covered = 0, next = 0;
  for (const Extent& e : *extents) {
    EXPECT_EQ(e.logical, next) << "extents in file order without holes";
    next = e.logical + e.length;
    covered += e.length;
  }
  EXPECT_EQ(covered, uint64_t{1} << 20);
}

TEST(FileExtents, NoneOnTmpfs) {
  std::string path;
  const int fd = make_file("/dev/shm", 4096, path);
  if (fd < 0) GTEST_SKIP() << "no /dev/shm";
  struct statfs fs;
  ASSERT_EQ(fstatfs(fd, &fs), 0);
  auto extents = file_extents(fd);
  close(fd);
  unlink(path.c_str());
  if (fs.f_type != kTmpfsMagic) GTEST_SKIP() << "/dev/shm is not tmpfs here";
  EXPECT_FALSE(extents.has_value());
}

TEST(FileExtents, AnEmptyFileHasNoExtentsButIsMapped) {
  char path[] = "/tmp/fiemap-empty-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  struct statfs fs;
  ASSERT_EQ(fstatfs(fd, &fs), 0);
  auto extents = file_extents(fd);
  close(fd);
  unlink(path);
  if (fs.f_type == kTmpfsMagic || !extents) GTEST_SKIP() << "/tmp has no FIEMAP";
  EXPECT_TRUE(extents->empty());
}

}  // namespace
}  // namespace diskcond::mount
