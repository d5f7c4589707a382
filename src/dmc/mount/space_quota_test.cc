// The pretend disk's capacity: reservations, settling and what statfs reports, exactly.
#include "dmc/mount/space_quota.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "test_support/scratch_dir.h"

namespace diskcond::mount {
namespace {

constexpr uint64_t kMiB = 1 << 20;

using test_support::ScratchDir;

// A directory descriptor of `dir`, closed with the object.
struct DirFd {
  explicit DirFd(const ScratchDir& dir)
      : fd(open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  ~DirFd() {
    if (fd >= 0) close(fd);
  }
  int fd;
};

TEST(SpaceQuota, OffReservesAnythingAndChangesNothing) {
  SpaceQuota quota;
  EXPECT_TRUE(quota.reserve(UINT64_MAX / 2));
  quota.settle(0, 4096);
  struct statvfs sv {};
  sv.f_frsize = 4096;
  sv.f_blocks = 1000;
  quota.adjust(sv);
  EXPECT_EQ(sv.f_blocks, 1000u);
}

TEST(SpaceQuota, ReservationsStopAtTheCapacityAndSettlingFreesThem) {
  ScratchDir dir("space_quota");
  DirFd root(dir);
  SpaceQuota quota;
  quota.set_capacity(8 * kMiB, root.fd);
  EXPECT_TRUE(quota.reserve(6 * kMiB));
  EXPECT_FALSE(quota.reserve(3 * kMiB)) << "6 + 3 MiB pass 8";
  quota.settle(6 * kMiB, 6 * kMiB);  // the write allocated all it reserved
  const uint64_t used = quota.used();
  EXPECT_TRUE(quota.reserve(8 * kMiB - used));
  EXPECT_FALSE(quota.reserve(4096));
  quota.settle(8 * kMiB - used, 0);                  // it failed: nothing allocated
  quota.settle(0, -static_cast<int64_t>(6 * kMiB));  // a file removed
  EXPECT_EQ(quota.used(), used - 6 * kMiB);
  quota.settle(0, -static_cast<int64_t>(100 * kMiB));  // never below zero
  EXPECT_EQ(quota.used(), 0u);
}

TEST(SpaceQuota, StatfsShowsThePretendDiskAndNeverMoreFreeThanTheBackingHas) {
  ScratchDir dir("space_quota");
  DirFd root(dir);
  SpaceQuota quota;
  quota.set_capacity(8 * kMiB, root.fd);
  quota.settle(0,
               static_cast<int64_t>(2 * kMiB) - static_cast<int64_t>(quota.used()));  // 2 MiB used
  struct statvfs sv {};
  sv.f_frsize = 4096;
  sv.f_blocks = 1'000'000;
  sv.f_bfree = 500'000;
  sv.f_bavail = 400'000;
  quota.adjust(sv);
  EXPECT_EQ(sv.f_blocks, 2048u);
  EXPECT_EQ(sv.f_bfree, 1536u);
  EXPECT_EQ(sv.f_bavail, 1536u);
  sv.f_bfree = sv.f_bavail = 100;  // the backing itself is nearly full
  quota.adjust(sv);
  EXPECT_EQ(sv.f_bavail, 100u);
}

TEST(SpaceQuota, TheWalkCountsEachInodeOnce) {
  ScratchDir dir("space_quota");
  DirFd root(dir);
  const std::string file = dir.path() + "/data";
  const int fd = open(file.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  std::string block(64 * 1024, 'x');
  ASSERT_EQ(write(fd, block.data(), block.size()), static_cast<ssize_t>(block.size()));
  fsync(fd);
  const uint64_t file_bytes = allocated_bytes(fd);
  close(fd);
  const uint64_t before = allocated_bytes_under(root.fd);
  ASSERT_EQ(link(file.c_str(), (dir.path() + "/second-name").c_str()), 0);
  EXPECT_EQ(allocated_bytes_under(root.fd), before) << "a second name takes no space";
  EXPECT_GE(before, file_bytes);
  EXPECT_EQ(freed_by_removing(root.fd, "data"), 0u) << "another name keeps the blocks";
  ASSERT_EQ(unlink((dir.path() + "/second-name").c_str()), 0);
  EXPECT_EQ(freed_by_removing(root.fd, "data"), file_bytes);
}

TEST(SpaceQuota, AWriteNeedsAtMostTheBlocksPastTheEndOrAllOfItWhereThereAreHoles) {
  // Dense 10,000-byte file (3 blocks allocated).
  EXPECT_EQ(worst_case_write_allocation(0, 4096, 10'000, 12'288), 0u) << "an overwrite";
  EXPECT_EQ(worst_case_write_allocation(8192, 4096, 10'000, 12'288), 0u) << "within the last block";
  EXPECT_EQ(worst_case_write_allocation(10'000, 4096, 10'000, 12'288), 4096u) << "an append";
  EXPECT_EQ(worst_case_write_allocation(1 << 20, 1, 10'000, 12'288), 4096u) << "past a hole";
  // Sparse: 1 MiB long, one block allocated.
  EXPECT_EQ(worst_case_write_allocation(0, 8192, 1 << 20, 4096), 8192u);
}

}  // namespace
}  // namespace diskcond::mount
