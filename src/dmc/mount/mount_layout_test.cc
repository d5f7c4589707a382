// Locality and metadata reads through a real mount: files are placed from their backing extents
// (or hashed where the backing has no FIEMAP), an inode the kernel does not hold costs an
// inode-table read when it is looked up and a held one costs nothing, and `dmc sync` waits for what
// the write-back model says a sync takes.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "dmc/mount/fiemap.h"
#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

constexpr int64_t kMs = 1'000'000;

MountCounters counters_of(MountControl& control, const std::string& dir) {
  auto st = control.status(dir);
  EXPECT_TRUE(st.ok()) << st.error();
  return st.ok() ? st->counters : MountCounters{};
}

void stat_all(const std::string& dir, int files) {
  struct stat st;
  for (int i = 0; i < files; ++i) {
    ASSERT_EQ(stat((dir + "/f" + std::to_string(i)).c_str(), &st), 0) << i;
  }
}

class MountLayout : public MountTest {
 protected:
  // A new daemon on the same tree: nothing of it is held by the kernel or read by the model, as
  // after `echo 3 > /proc/sys/vm/drop_caches` (which forgets inodes asynchronously, so a test
  // could not tell when it is done).
  void restart(const Profile& profile, CacheMode cache) {
    ASSERT_TRUE(control_->stop(dir_, false).ok());
    start(profile, cache);
  }
  void make_files(const std::string& sub, int files) {
    ASSERT_EQ(mkdir(path(sub).c_str(), 0755), 0);
    for (int i = 0; i < files; ++i) {
      const int fd = open((path(sub) + "/f" + std::to_string(i)).c_str(), O_CREAT | O_WRONLY, 0644);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(write(fd, "data", 4), 4);
      close(fd);
    }
  }
};

TEST_F(MountLayout, AnInodeTheKernelDoesNotHoldIsReadAndAHeldOneIsNot) {
  start(ssd_profile(0), CacheMode::kWriteBack);
  make_files("tree", 40);
  restart(ssd_profile(0), CacheMode::kWriteBack);
  const uint64_t before = counters_of(*control_, dir_).metadata_reads;
  stat_all(path("tree"), 40);
  const uint64_t cold = counters_of(*control_, dir_).metadata_reads;
  // 40 inodes made one after the other share one or two inode-table clusters (512 inodes each),
  // and the directory's own inode another; other programs creating files at the same time can
  // spread the numbers the backing file system hands out (5 reads seen once under load). Far
  // fewer than one read per inode either way.
  EXPECT_GE(cold, before + 1);
  EXPECT_LE(cold, before + 8);
  stat_all(path("tree"), 40);
  EXPECT_EQ(counters_of(*control_, dir_).metadata_reads, cold) << "held inodes cost nothing";
}

TEST_F(MountLayout, ADirectoryTheKernelDoesNotHoldIsReadOnceWhenListed) {
  start(ssd_profile(0), CacheMode::kWriteBack);
  for (const char* sub : {"d0", "d1", "d2"}) make_files(sub, 2);
  restart(ssd_profile(0), CacheMode::kWriteBack);
  const uint64_t before = counters_of(*control_, dir_).directory_reads;
  auto list = [&](const std::string& sub) {
    DIR* d = opendir(path(sub).c_str());
    ASSERT_NE(d, nullptr) << sub;
    int entries = 0;
    while (readdir(d) != nullptr) ++entries;
    closedir(d);
    EXPECT_EQ(entries, 4) << sub;  // ., .., f0, f1
  };
  for (const char* sub : {"d0", "d1", "d2"}) list(sub);
  const uint64_t cold = counters_of(*control_, dir_).directory_reads;
  // Each subdirectory once, and the mount's root once if nothing listed it since the restart.
  EXPECT_GE(cold, before + 3);
  EXPECT_LE(cold, before + 4);
  for (const char* sub : {"d0", "d1", "d2"}) list(sub);
  EXPECT_EQ(counters_of(*control_, dir_).directory_reads, cold) << "held directories cost nothing";
}

TEST_F(MountLayout, AColdLookupOnAnHddPaysASeek) {
  Profile hdd = ssd_profile(50, 20'000, 1);
  hdd.type = DiskType::kHDD;
  start(hdd, CacheMode::kWriteBack);
  make_files("tree", 2);
  restart(hdd, CacheMode::kWriteBack);
  struct stat st;
  const int64_t t0 = monotonic_now_ns();
  ASSERT_EQ(stat(path("tree/f0").c_str(), &st), 0);
  const int64_t took = monotonic_now_ns() - t0;
  // At least the directory's blocks and one inode-table cluster, each at least the shortest
  // seek (a third of the access time): never faster than that.
  EXPECT_GE(took, 2 * 20 * kMs / 3) << took / 1e6 << " ms";
}

TEST_F(MountLayout, FilesArePlacedFromTheirExtentsWhereTheBackingHasFiemap) {
  // Does the backing file system (where dir_ lives) have FIEMAP?
  const int probe = open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(probe, 0);
  const bool fiemap = file_extents(probe).has_value();
  close(probe);
  start(ssd_profile(0), CacheMode::kPageCache);
  const int fd = open(path("data").c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "x", 1), 1);
  close(fd);
  MountCounters c = counters_of(*control_, dir_);
  if (fiemap) {
    EXPECT_GE(c.files_mapped, 1u);
    EXPECT_EQ(c.files_hashed, 0u);
  } else {
    EXPECT_GE(c.files_hashed, 1u);
  }
  EXPECT_EQ(c.files_linear, 0u);
  // An O_DIRECT open makes it a linear region (the application manages its layout).
  const int direct = open(path("data").c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(direct, 0);
  close(direct);
  c = counters_of(*control_, dir_);
  EXPECT_EQ(c.files_linear, 1u);
}

TEST_F(MountLayout, SyncWaitsForTheDirtyDataAndThenHasNothingToDo) {
  start(ssd_profile(4, 0, 1), CacheMode::kWriteBack);  // 4 MiB/s: 1 MiB takes 250 ms
  const std::vector<char> data(kMiB, 's');
  const int fd = open(path("dirty").c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, data.data(), data.size()), ssize_t(data.size()));
  close(fd);
  const int64_t t0 = monotonic_now_ns();
  auto s = control_->sync(dir_);
  const int64_t first = monotonic_now_ns() - t0;
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_GE(first, 250 * kMs) << first / 1e6 << " ms";
  const int64_t t1 = monotonic_now_ns();
  ASSERT_TRUE(control_->sync(dir_).ok());
  const int64_t second = monotonic_now_ns() - t1;
  EXPECT_LT(second, first / 2) << second / 1e6 << " ms after " << first / 1e6;
}

TEST_F(MountLayout, SyncOfADirectoryNotConditionedFails) {
  auto s = control_->sync(dir_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("not conditioned"), std::string::npos) << s.error();
}

}  // namespace
}  // namespace diskcond::mount::testing
