// Integration, lifecycle faults: stop with I/O in flight, stop refused while busy, nested and
// overlapping mounts, bad paths, and a backing filesystem that fills up. Contract under test:
// every write acknowledged to the caller is on the backing filesystem afterwards, a refused
// operation changes nothing, and errors reach the caller as the backing filesystem gave them.
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

using MountFault = MountTest;

constexpr size_t kBlock = 64 * 1024;

std::string read_all(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Block i of a test file is filled with the byte 'a' + i % 26.
char block_byte(size_t i) {
  return static_cast<char>('a' + i % 26);
}

// Counts how many leading blocks of `content` carry their pattern.
size_t intact_blocks(const std::string& content) {
  size_t i = 0;
  for (; (i + 1) * kBlock <= content.size(); ++i) {
    if (content.find_first_not_of(block_byte(i), i * kBlock) < (i + 1) * kBlock) break;
  }
  return i;
}

// Writes block after block (write + fsync) until `stop_writing`; `acked` counts the blocks whose
// fsync returned success. Returns the errno of the first failure, or 0.
int write_blocks(int fd, std::atomic<bool>& stop_writing, std::atomic<size_t>& acked) {
  std::string block(kBlock, 0);
  for (size_t i = 0; !stop_writing; ++i) {
    block.assign(kBlock, block_byte(i));
    for (size_t done = 0; done < kBlock;) {  // a short write is retried; the retry tells why
      const ssize_t n =
          pwrite(fd, block.data() + done, kBlock - done, static_cast<off_t>(i * kBlock + done));
      if (n < 0) return errno;
      if (n == 0) return EIO;
      done += static_cast<size_t>(n);
    }
    if (fsync(fd) != 0) return errno;
    acked = i + 1;
  }
  return 0;
}

void stop_during_writes(const std::string& dir, MountControl& control, CacheMode cache) {
  ASSERT_TRUE(control.start(dir, MountSettings{ssd_profile(4, 500), cache}).ok());
  const std::string file = dir + "/stream";
  int fd = open(file.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  std::atomic<bool> stop_writing{false};
  std::atomic<size_t> acked{0};
  int writer_errno = -1;
  std::thread writer([&] { writer_errno = write_blocks(fd, stop_writing, acked); });
  // Stop once a few blocks are acknowledged (a busy machine's fsync can take a while).
  for (int i = 0; i < 2000 && acked < 3; ++i) usleep(5 * 1000);
  auto refused = control.stop(dir, false);  // the writer keeps the file open
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(is_conditioned_mount(dir));
  ASSERT_TRUE(control.stop(dir, true).ok());
  const size_t acked_at_stop = acked;
  usleep(50 * 1000);  // the detached mount keeps serving the open file for a while
  stop_writing = true;
  writer.join();
  close(fd);
  EXPECT_EQ(writer_errno, 0) << std::strerror(writer_errno);
  EXPECT_GT(acked_at_stop, 0u);
  EXPECT_FALSE(is_conditioned_mount(dir));
  const size_t intact = intact_blocks(read_all(file));
  EXPECT_GE(intact, acked.load()) << "acknowledged blocks lost (acked at stop " << acked_at_stop
                                  << ")";
}

TEST_F(MountFault, StopDuringWriteAndFsyncLoopKeepsEveryAcknowledgedWrite) {
  stop_during_writes(dir_, *control_, CacheMode::kPageCache);
}

TEST_F(MountFault, StopDuringDirectWritesKeepsEveryAcknowledgedWrite) {
  stop_during_writes(dir_, *control_, CacheMode::kNoCache);
}

// Without force, a stop refused because a file is open changes nothing: same daemon, same
// settings, the open file still works, and a later stop succeeds.
TEST_F(MountFault, RefusedStopChangesNothing) {
  start(ssd_profile(0));
  auto before = control_->status(dir_);
  ASSERT_TRUE(before.ok());
  int fd = open(path("open").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  auto stop = control_->stop(dir_, false);
  ASSERT_FALSE(stop.ok());
  EXPECT_NE(stop.error().find("busy"), std::string::npos) << stop.error();
  EXPECT_NE(stop.error().find(dir_), std::string::npos) << stop.error();
  auto after = control_->status(dir_);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->mounted && after->daemon_alive);
  EXPECT_EQ(after->daemon_pid, before->daemon_pid);
  EXPECT_EQ(after->settings.profile, before->settings.profile);
  EXPECT_EQ(pwrite(fd, "after", 5, 0), 5);
  close(fd);
  std::ofstream(path("new")) << "x";
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_EQ(read_all(path("open")), "after");
  EXPECT_EQ(read_all(path("new")), "x");
}

// A process whose working directory is inside the mount also keeps it busy.
TEST_F(MountFault, WorkingDirectoryInsideKeepsTheMountBusy) {
  start(ssd_profile(0));
  ASSERT_EQ(mkdir(path("sub").c_str(), 0755), 0);
  int to_child[2];
  ASSERT_EQ(pipe(to_child), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(to_child[1]);  // or the read below never sees end of file
    char c;
    _exit(chdir(path("sub").c_str()) == 0 && read(to_child[0], &c, 1) >= 0 ? 0 : 1);
  }
  usleep(100 * 1000);
  auto stop = control_->stop(dir_, false);
  EXPECT_FALSE(stop.ok());
  EXPECT_TRUE(is_conditioned_mount(dir_));
  close(to_child[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  close(to_child[0]);
  EXPECT_TRUE(control_->stop(dir_, false).ok());
}

TEST_F(MountFault, MissingPathsAndFilesAreClearErrors) {
  auto missing = control_->start(path("missing"), MountSettings{ssd_profile(0)});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("missing"), std::string::npos) << missing.error();
  EXPECT_NE(missing.error().find("No such file"), std::string::npos) << missing.error();
  std::ofstream(path("file")) << "x";
  auto stop_file = control_->stop(path("file"), false);
  EXPECT_FALSE(stop_file.ok());
  auto stop_missing = control_->stop(path("missing"), true);
  ASSERT_FALSE(stop_missing.ok());
  EXPECT_NE(stop_missing.error().find("No such file"), std::string::npos) << stop_missing.error();
  // A symlink to a directory conditions the directory itself.
  ASSERT_EQ(mkdir(path("real").c_str(), 0755), 0);
  ASSERT_EQ(symlink("real", path("alias").c_str()), 0);
  ASSERT_TRUE(control_->start(path("alias"), MountSettings{ssd_profile(0)}).ok());
  EXPECT_TRUE(is_conditioned_mount(path("real")));
  ASSERT_TRUE(control_->stop(path("alias"), false).ok());
  EXPECT_EQ(read_all(path("file")), "x");
}

// Force-stops a conditioned mount (if any) when the test leaves, pass or fail.
struct StopOnExit {
  MountControl& control;
  std::string dir;
  ~StopOnExit() {
    if (is_conditioned_mount(dir)) static_cast<void>(control.stop(dir, true));
  }
};

// A small tmpfs conditioned in place; unmounted (mount first) whatever the test does.
class SmallBackingFilesystem {
 public:
  explicit SmallBackingFilesystem(std::string dir) : dir_(std::move(dir)) {
    mkdir(dir_.c_str(), 0755);
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=4m,mode=0755") == 0;
  }
  ~SmallBackingFilesystem() {
    if (is_conditioned_mount(dir_)) umount2(dir_.c_str(), MNT_DETACH);
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

// Writes until the backing filesystem is full: the caller sees ENOSPC (from write or fsync, not
// EIO, not a silent success), and every block acknowledged before it is intact after stop.
void fill_until_enospc(MountControl& control, const std::string& dir, CacheMode cache) {
  ASSERT_TRUE(control.start(dir, MountSettings{ssd_profile(0), cache}).ok());
  std::ofstream(dir + "/ballast") << std::string(256 * 1024, 'b');  // freed once full
  const std::string file = dir + "/fill";
  int fd = open(file.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  std::atomic<bool> never{false};
  std::atomic<size_t> acked{0};
  const int err = write_blocks(fd, never, acked);
  EXPECT_EQ(err, ENOSPC) << std::strerror(err);
  EXPECT_GT(acked.load(), 16u);  // about 4 MiB / 64 KiB blocks fit
  close(fd);
  EXPECT_GE(intact_blocks(read_all(file)), acked.load());
  // The mount still works once space is freed. The backing inode goes when the kernel forgets
  // it (the daemon holds an O_PATH descriptor until then), a moment after the unlink.
  ASSERT_EQ(unlink((dir + "/ballast").c_str()), 0);
  for (int i = 0; i < 1000; ++i) {
    struct statvfs now;
    if (statvfs(dir.c_str(), &now) == 0 && now.f_bavail * now.f_frsize >= 64 * 1024) break;
    usleep(10 * 1000);
  }
  {
    std::ofstream after(dir + "/after");
    after << "still fine";
    after.close();
    EXPECT_TRUE(after.good()) << "writing after the ballast was freed failed";
  }
  ASSERT_TRUE(control.stop(dir, false).ok());
  EXPECT_GE(intact_blocks(read_all(file)), acked.load());
  EXPECT_EQ(read_all(dir + "/after"), "still fine");
}

TEST_F(MountFault, FullBackingFilesystemGivesEnospcAndKeepsData) {
  SmallBackingFilesystem small(path("small"));
  if (!small.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here";
  fill_until_enospc(*control_, path("small"), CacheMode::kPageCache);
}

TEST_F(MountFault, FullBackingFilesystemGivesEnospcWithoutCache) {
  SmallBackingFilesystem small(path("small"));
  if (!small.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here";
  fill_until_enospc(*control_, path("small"), CacheMode::kNoCache);
}

// Nested conditioning (a subdirectory of a conditioned mount, or a parent of one) is refused
// with a clear error, and the existing mount goes on serving untouched.
TEST_F(MountFault, StartInsideAConditionedMountIsRefused) {
  ASSERT_EQ(mkdir(path("sub").c_str(), 0755), 0);
  start(ssd_profile(0));
  std::ofstream(path("sub/kept")) << "kept";
  auto inner = control_->start(path("sub"), MountSettings{ssd_profile(0)});
  ASSERT_FALSE(inner.ok());
  EXPECT_NE(inner.error().find("inside the conditioned mount " + dir_), std::string::npos)
      << inner.error();
  EXPECT_FALSE(is_conditioned_mount(path("sub")));
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_EQ(read_all(path("sub/kept")), "kept");
}

TEST_F(MountFault, StartAboveAConditionedMountIsRefused) {
  ASSERT_EQ(mkdir(path("sub").c_str(), 0755), 0);
  StopOnExit guard{*control_, path("sub")};
  ASSERT_TRUE(control_->start(path("sub"), MountSettings{ssd_profile(0)}).ok());
  std::ofstream(path("sub/kept")) << "kept";
  auto outer = control_->start(dir_, MountSettings{ssd_profile(0)});
  ASSERT_FALSE(outer.ok());
  EXPECT_NE(outer.error().find("contains the conditioned mount " + path("sub")), std::string::npos)
      << outer.error();
  EXPECT_FALSE(is_conditioned_mount(dir_));
  EXPECT_TRUE(is_conditioned_mount(path("sub")));
  ASSERT_TRUE(control_->stop(path("sub"), false).ok());
  EXPECT_EQ(read_all(path("sub/kept")), "kept");
  // Once the inner one is gone, the parent can be conditioned.
  start(ssd_profile(0));
}

}  // namespace
}  // namespace diskcond::mount::testing
