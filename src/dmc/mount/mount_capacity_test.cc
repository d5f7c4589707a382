// A profile's capacity through a real mount: statfs shows the pretend disk, a write past it fails
// with ENOSPC and changes nothing, and removing or shrinking a file gives the space back.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

class MountCapacity : public MountTest {
 protected:
  // Writes `bytes` to `name` (created), then fsyncs; returns 0 or the errno of the first failure.
  int write_file(const std::string& name, size_t bytes, int flags = O_TRUNC) {
    const int fd = open(path(name).c_str(), O_CREAT | O_WRONLY | flags, 0644);
    if (fd < 0) return errno;
    std::vector<char> chunk(kMiB, 'c');
    int err = 0;
    for (size_t done = 0; done < bytes && err == 0;) {
      const ssize_t n = write(fd, chunk.data(), std::min(chunk.size(), bytes - done));
      if (n < 0)
        err = errno;  // a short write is followed by the failing one
      else
        done += static_cast<size_t>(n);
    }
    if (err == 0 && fsync(fd) != 0) err = errno;
    close(fd);
    return err;
  }
  uint64_t free_bytes() {
    struct statvfs sv;
    EXPECT_EQ(statvfs(dir_.c_str(), &sv), 0);
    return static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
  }
};

TEST_F(MountCapacity, WritesPastThePretendDiskFailWithEnospcUntilSpaceIsFreed) {
  Profile small = ssd_profile(0);
  small.capacity_bytes = 16 * kMiB;
  start(small, CacheMode::kWriteBack);

  struct statvfs sv;
  ASSERT_EQ(statvfs(dir_.c_str(), &sv), 0);
  EXPECT_EQ(static_cast<uint64_t>(sv.f_blocks) * sv.f_frsize, 16 * kMiB);
  const uint64_t free_at_start = free_bytes();
  EXPECT_LE(free_at_start, 16 * kMiB);
  EXPECT_GT(free_at_start, 15 * kMiB) << "an empty directory uses almost nothing";

  ASSERT_EQ(write_file("a", 10 * kMiB), 0);
  EXPECT_NEAR(static_cast<double>(free_bytes()), static_cast<double>(free_at_start - 10 * kMiB),
              64 * 1024);
  EXPECT_EQ(write_file("b", 8 * kMiB), ENOSPC);
  struct stat st;
  ASSERT_EQ(stat(path("b").c_str(), &st), 0);
  EXPECT_LE(static_cast<uint64_t>(st.st_size), 6 * kMiB)
      << "it stopped at the first write that did not fit";

  // An overwrite in place needs no new space, even on a full disk.
  const int fd = open(path("a").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  std::vector<char> chunk(kMiB, 'o');
  EXPECT_EQ(pwrite(fd, chunk.data(), chunk.size(), 0), static_cast<ssize_t>(chunk.size()));
  EXPECT_EQ(fallocate(fd, 0, 0, 32 * kMiB), -1);
  EXPECT_EQ(errno, ENOSPC);
  close(fd);
  {  // Full to the last block: 4 KiB appends until one fails.
    const int filler = open(path("filler").c_str(), O_CREAT | O_WRONLY | O_APPEND, 0644);
    ASSERT_GE(filler, 0);
    std::vector<char> block(4096, 'f');
    int appended = 0;
    while (write(filler, block.data(), block.size()) == 4096 && appended < 4096) ++appended;
    EXPECT_EQ(errno, ENOSPC);
    close(filler);
  }
  EXPECT_EQ(mkdir(path("dir").c_str(), 0755), -1);
  EXPECT_EQ(errno, ENOSPC);

  // Freeing: removing b and shrinking a make room for 8 MiB again.
  ASSERT_EQ(unlink(path("b").c_str()), 0);
  ASSERT_EQ(truncate(path("a").c_str(), 4 * kMiB), 0);
  EXPECT_EQ(write_file("c", 8 * kMiB), 0);
  EXPECT_EQ(write_file("d", 8 * kMiB), ENOSPC);
}

// A capacity given to a live mount counts what the directory already holds.
TEST_F(MountCapacity, ACapacitySetLaterCountsWhatIsAlreadyThere) {
  start(ssd_profile(0), CacheMode::kWriteBack);
  ASSERT_EQ(write_file("old", 6 * kMiB), 0);
  Profile small = ssd_profile(0);
  small.capacity_bytes = 8 * kMiB;
  ASSERT_TRUE(control_->update(dir_, MountSettings{small, CacheMode::kWriteBack}).ok());
  EXPECT_LE(free_bytes(), 2 * kMiB);
  EXPECT_EQ(write_file("new", 4 * kMiB), ENOSPC);
}

TEST_F(MountCapacity, WithoutACapacityStatfsIsTheBackingFileSystems) {
  start(ssd_profile(0), CacheMode::kWriteBack);
  struct statvfs mounted;
  ASSERT_EQ(statvfs(dir_.c_str(), &mounted), 0);
  struct statvfs backing;
  ASSERT_EQ(statvfs("/tmp", &backing), 0);  // MountTest's directories live there
  EXPECT_EQ(mounted.f_blocks, backing.f_blocks);
}

}  // namespace
}  // namespace diskcond::mount::testing
