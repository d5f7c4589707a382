// Integration: file operations through a real conditioned mount behave as on the backing
// filesystem, and everything done through the mount is in the directory after stop.
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& p, const std::string& text) {
  std::ofstream out(p, std::ios::trunc);
  out << text;
}

// A directory beside the mount's with the same 64 KiB file `f` as `mounted_file`: what the backing
// filesystem answers without the mount, for differential tests. Removed when it goes.
class PlainTwin {
 public:
  PlainTwin(const std::string& dir, const std::string& mounted_file) : dir_(dir + "-plain") {
    EXPECT_EQ(mkdir(dir_.c_str(), 0755), 0);
    const std::string data(64 * 1024, 'd');
    spit(file(), data);
    spit(mounted_file, data);
  }
  ~PlainTwin() { std::filesystem::remove_all(dir_); }
  PlainTwin(const PlainTwin&) = delete;
  PlainTwin& operator=(const PlainTwin&) = delete;
  std::string file() const { return dir_ + "/f"; }

 private:
  std::string dir_;
};

// `bytes` of memory aligned for O_DIRECT (4 KiB); null when there is none.
std::unique_ptr<char, decltype(&free)> aligned_block(size_t bytes) {
  void* mem = nullptr;
  if (posix_memalign(&mem, 4096, bytes) != 0) mem = nullptr;
  return {static_cast<char*>(mem), &free};
}

using MountFunctional = MountTest;

TEST_F(MountFunctional, ServesTheOriginalTreeInPlace) {
  spit(path("before"), "old content");
  start(ssd_profile(0));
  EXPECT_TRUE(is_conditioned_mount(dir_));
  EXPECT_EQ(slurp(path("before")), "old content");
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->mounted);
  EXPECT_TRUE(st->daemon_alive);
  EXPECT_GT(st->daemon_pid, 0);
  EXPECT_GE(st->counters.commands[0], 1u);  // the read above went through the model
}

TEST_F(MountFunctional, FileAndDirectoryOperations) {
  start(ssd_profile(0));
  spit(path("a"), "hello");
  EXPECT_EQ(slurp(path("a")), "hello");
  ASSERT_EQ(mkdir(path("d").c_str(), 0750), 0);
  ASSERT_EQ(rename(path("a").c_str(), path("d/b").c_str()), 0);
  ASSERT_EQ(symlink("b", path("d/s").c_str()), 0);
  ASSERT_EQ(link(path("d/b").c_str(), path("hard").c_str()), 0);
  char target[16] = {};
  ASSERT_EQ(readlink(path("d/s").c_str(), target, sizeof(target)), 1);
  EXPECT_STREQ(target, "b");
  EXPECT_EQ(slurp(path("d/s")), "hello");
  struct stat st1, st2;
  ASSERT_EQ(stat(path("hard").c_str(), &st1), 0);
  ASSERT_EQ(stat(path("d/b").c_str(), &st2), 0);
  EXPECT_EQ(st1.st_ino, st2.st_ino);
  EXPECT_EQ(st1.st_nlink, 2u);
  EXPECT_EQ(st1.st_mode & 07777, 0644u);

  // xattrs
  ASSERT_EQ(setxattr(path("hard").c_str(), "user.color", "blue", 4, 0), 0) << strerror(errno);
  char value[16] = {};
  EXPECT_EQ(getxattr(path("d/b").c_str(), "user.color", value, sizeof(value)), 4);
  EXPECT_STREQ(value, "blue");
  EXPECT_GT(listxattr(path("hard").c_str(), nullptr, 0), 0);
  ASSERT_EQ(removexattr(path("hard").c_str(), "user.color"), 0);
  EXPECT_EQ(getxattr(path("hard").c_str(), "user.color", value, sizeof(value)), -1);
  EXPECT_EQ(errno, ENODATA);

  // truncate, fallocate, chmod, utimes
  ASSERT_EQ(truncate(path("hard").c_str(), 2), 0);
  EXPECT_EQ(slurp(path("d/b")), "he");
  int fd = open(path("hard").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fallocate(fd, 0, 0, 1 << 20), 0) << strerror(errno);
  ASSERT_EQ(fstat(fd, &st1), 0);
  EXPECT_EQ(st1.st_size, 1 << 20);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  ASSERT_EQ(fchmod(fd, 0600), 0);
  EXPECT_EQ(flock(fd, LOCK_EX), 0);
  EXPECT_EQ(flock(fd, LOCK_UN), 0);
  close(fd);
  ASSERT_EQ(stat(path("hard").c_str(), &st1), 0);
  EXPECT_EQ(st1.st_mode & 07777, 0600u);
  EXPECT_EQ(st1.st_size, 4096);
  timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path("hard").c_str(), times, 0), 0);
  ASSERT_EQ(stat(path("hard").c_str(), &st1), 0);
  EXPECT_EQ(st1.st_mtime, 1000000000);

  // mmap: write through a shared mapping, read back through read()
  fd = open(path("mapped").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 8192), 0);
  void* m = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(m, MAP_FAILED) << strerror(errno);
  std::memcpy(static_cast<char*>(m) + 4096, "mapped!", 7);
  ASSERT_EQ(msync(m, 8192, MS_SYNC), 0);
  munmap(m, 8192);
  char back[8] = {};
  ASSERT_EQ(pread(fd, back, 7, 4096), 7);
  EXPECT_STREQ(back, "mapped!");
  close(fd);

  // special files and directory listing
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0644), 0);
  ASSERT_EQ(stat(path("fifo").c_str(), &st1), 0);
  EXPECT_TRUE(S_ISFIFO(st1.st_mode));
  int entries = 0;
  for (auto& e : std::filesystem::directory_iterator(dir_)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 4);  // d, hard, mapped, fifo

  // unlink, rmdir
  ASSERT_EQ(unlink(path("d/s").c_str()), 0);
  ASSERT_EQ(unlink(path("d/b").c_str()), 0);
  ASSERT_EQ(rmdir(path("d").c_str()), 0);
  EXPECT_EQ(access(path("d").c_str(), F_OK), -1);

  // statfs reports the backing filesystem's size
  struct statvfs through, backing;
  ASSERT_EQ(statvfs(dir_.c_str(), &through), 0);
  ASSERT_EQ(statvfs("/tmp", &backing), 0);
  EXPECT_EQ(through.f_blocks, backing.f_blocks);

  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_FALSE(is_conditioned_mount(dir_));
  // Everything done through the mount is in the directory itself.
  ASSERT_EQ(stat(path("hard").c_str(), &st1), 0);
  EXPECT_EQ(st1.st_size, 4096);
  EXPECT_EQ(st1.st_mtime, 1000000000);
  EXPECT_EQ(slurp(path("mapped")).substr(4096, 7), "mapped!");
  EXPECT_EQ(access(path("fifo").c_str(), F_OK), 0);
}

TEST_F(MountFunctional, MountOptionsFollowTheBackingMount) {
  start(ssd_profile(0));
  struct statvfs backing, through;
  ASSERT_EQ(statvfs("/tmp", &backing), 0);
  ASSERT_EQ(statvfs(dir_.c_str(), &through), 0);
  EXPECT_EQ(through.f_flag & (ST_NOSUID | ST_NODEV | ST_NOEXEC | ST_RDONLY),
            backing.f_flag & (ST_NOSUID | ST_NODEV | ST_NOEXEC | ST_RDONLY));
  std::ifstream info("/proc/self/mountinfo");
  std::string line;
  bool found = false;
  while (std::getline(info, line)) {
    if (line.find(" " + dir_ + " ") == std::string::npos) continue;
    found = true;
    EXPECT_NE(line.find("allow_other"), std::string::npos) << line;
    EXPECT_NE(line.find("default_permissions"), std::string::npos) << line;
    EXPECT_NE(line.find("fuse.diskcond"), std::string::npos) << line;
  }
  EXPECT_TRUE(found);
}

// More inodes than descriptors: the daemon closes and reopens O_PATH descriptors (budget 32 here,
// three quarters of RLIMIT_NOFILE normally) and everything keeps working, for any user.
TEST_F(MountFunctional, MoreInodesThanTheDescriptorBudget) {
  constexpr int kFiles = 300;
  ASSERT_EQ(mkdir(path("many").c_str(), 0777), 0);
  chmod(path("many").c_str(), 0777);
  for (int i = 0; i < kFiles; ++i) spit(path("many/f" + std::to_string(i)), std::to_string(i));
  setenv("DISKCOND_INODE_FD_BUDGET", "32", 1);
  start(ssd_profile(0));
  unsetenv("DISKCOND_INODE_FD_BUDGET");
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kFiles; ++i) {
      ASSERT_EQ(slurp(path("many/f" + std::to_string(i))), std::to_string(i)) << i;
    }
  }
  // Operations on inodes whose descriptors were closed, as another user.
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] {
                     if (rename(path("many/f0").c_str(), path("many/g0").c_str()) != 0) return 1;
                     if (unlink(path("many/f1").c_str()) != 0) return 2;
                     struct stat st;
                     if (stat(path("many/f2").c_str(), &st) != 0) return 3;
                     int fd = open(path("many/f3").c_str(), O_RDONLY);
                     if (fd < 0) return 4;
                     close(fd);
                     return 0;
                   }),
            0);
  int entries = 0;
  for (auto& e : std::filesystem::directory_iterator(path("many"))) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, kFiles - 1);
  EXPECT_EQ(slurp(path("many/g0")), "0");
}

TEST_F(MountFunctional, MetadataChangesCostOneSmallWriteEach) {
  start(ssd_profile(0));
  struct stat st;
  ASSERT_NE(stat(path("absent").c_str(), &st), 0);  // the root's blocks are read: now in memory
  auto before = control_->status(dir_);
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(mkdir(path("m").c_str(), 0755), 0);                  // 1
  int fd = open(path("m/f").c_str(), O_WRONLY | O_CREAT, 0644);  // 2 (create)
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_EQ(rename(path("m/f").c_str(), path("m/g").c_str()), 0);  // 3
  ASSERT_EQ(chmod(path("m/g").c_str(), 0600), 0);                  // 4 (setattr)
  ASSERT_EQ(symlink("g", path("m/s").c_str()), 0);                 // 5
  ASSERT_EQ(unlink(path("m/s").c_str()), 0);                       // 6
  ASSERT_EQ(unlink(path("m/g").c_str()), 0);                       // 7
  ASSERT_EQ(rmdir(path("m").c_str()), 0);                          // 8
  spit(path("t"), "");                                             // 9 (create)
  spit(path("t"), "");                                             // 10 (open with O_TRUNC)
  auto after = control_->status(dir_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->counters.commands[1] - before->counters.commands[1], 10u);
  EXPECT_EQ(after->counters.bytes[1] - before->counters.bytes[1], 10u * 4096);
  EXPECT_EQ(after->counters.commands[0], before->counters.commands[0]);
}

TEST_F(MountFunctional, CacheModeUpdateAppliesToFilesOpenedAfterwards) {
  spit(path("f"), std::string(64 * 1024, 'z'));
  start(ssd_profile(0), CacheMode::kPageCache);
  EXPECT_EQ(slurp(path("f")).size(), 64u * 1024);  // now cached
  ASSERT_TRUE(control_->update(dir_, MountSettings{ssd_profile(0), CacheMode::kNoCache}).ok());
  auto before = control_->status(dir_);
  ASSERT_TRUE(before.ok());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(slurp(path("f")).size(), 64u * 1024);
  auto after = control_->status(dir_);
  ASSERT_TRUE(after.ok());
  EXPECT_GE(after->counters.commands[0] - before->counters.commands[0], 3u);  // no cache now
}

TEST_F(MountFunctional, DirectIoWithAlignedBuffers) {
  start(ssd_profile(0), CacheMode::kPageCache);
  int fd = open(path("direct").c_str(), O_RDWR | O_CREAT | O_DIRECT, 0644);
  ASSERT_GE(fd, 0);
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, kMiB), 0);
  std::memset(buf, 'x', kMiB);
  EXPECT_EQ(pwrite(fd, buf, kMiB, 0), static_cast<ssize_t>(kMiB)) << strerror(errno);
  std::memset(buf, 0, kMiB);
  EXPECT_EQ(pread(fd, buf, kMiB, 0), static_cast<ssize_t>(kMiB)) << strerror(errno);
  EXPECT_EQ(static_cast<char*>(buf)[kMiB - 1], 'x');
  // Unaligned direct I/O fails like on the backing filesystem (ext4: EINVAL).
  EXPECT_EQ(pwrite(fd, static_cast<char*>(buf) + 1, 100, 3), -1);
  free(buf);
  close(fd);
}

// O_DIRECT reads go through a buffered twin descriptor (FileHandle): the alignment rule must
// stay the backing filesystem's, and reads must see every earlier write, direct or buffered.
TEST_F(MountFunctional, DirectReadsKeepTheBackingRulesAndSeeEveryWrite) {
  const PlainTwin plain(dir_, path("f"));
  start(ssd_profile(0), CacheMode::kPageCache);

  const auto block = aligned_block(3 * 4096);
  ASSERT_NE(block, nullptr);
  char* buf = block.get();
  int on_plain = open(plain.file().c_str(), O_RDONLY | O_DIRECT);
  int on_mount = open(path("f").c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(on_plain, 0);
  ASSERT_GE(on_mount, 0);
  struct Case {
    size_t size;
    off_t offset;
  };
  for (Case c : {Case{4096, 0}, Case{512, 512}, Case{4096, 1}, Case{100, 0}, Case{8192, 4096},
                 Case{3, 5}, Case{4096, 62 * 1024}, Case{4096, 64 * 1024}}) {
    errno = 0;
    const ssize_t want = pread(on_plain, buf, c.size, c.offset);
    const int want_errno = want < 0 ? errno : 0;
    errno = 0;
    const ssize_t got = pread(on_mount, buf, c.size, c.offset);
    const int got_errno = got < 0 ? errno : 0;
    EXPECT_EQ(got, want) << "size " << c.size << " at " << c.offset;
    EXPECT_EQ(got_errno, want_errno) << "size " << c.size << " at " << c.offset;
  }
  close(on_plain);

  // Coherence: read (fills the backing page cache), overwrite directly, then through a buffered
  // descriptor, reading back after each write.
  int direct = open(path("f").c_str(), O_RDWR | O_DIRECT);
  int buffered = open(path("f").c_str(), O_RDWR);
  ASSERT_GE(direct, 0);
  ASSERT_GE(buffered, 0);
  for (char round = 'a'; round < 'a' + 8; ++round) {
    ASSERT_EQ(pread(on_mount, buf, 4096, 8192), 4096);
    std::memset(buf, round, 4096);
    if (round % 2 == 0) {
      ASSERT_EQ(pwrite(direct, buf, 4096, 8192), 4096) << strerror(errno);
    } else {
      ASSERT_EQ(pwrite(buffered, buf, 4096, 8192), 4096) << strerror(errno);
    }
    std::memset(buf, 0, 4096);
    ASSERT_EQ(pread(on_mount, buf, 4096, 8192), 4096);
    EXPECT_EQ(std::string(buf, 4096), std::string(4096, round)) << "round " << round;
  }
  close(direct);
  close(buffered);
  close(on_mount);
}

// O_DIRECT writes go to the buffered twin while the profile charges time (issue 18, item 2) and
// to the O_DIRECT descriptor when conditioning is off: either way the alignment rule stays the
// backing filesystem's, the data reaches the backing file, and reads see it.
TEST_F(MountFunctional, DirectWritesKeepTheBackingRulesAndReachTheBackingFile) {
  const PlainTwin plain(dir_, path("f"));
  // The backing directory, as the mount will hide it.
  const int backing = open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(backing, 0);
  struct CloseFd {
    int fd;
    ~CloseFd() { close(fd); }
  } close_backing{backing};

  const auto block = aligned_block(3 * 4096);
  ASSERT_NE(block, nullptr);
  char* buf = block.get();
  struct Case {
    size_t size;
    off_t offset;
  };
  for (const Profile& profile : {ssd_profile(0), ssd_profile(4096)}) {
    SCOPED_TRACE(charges_time(profile) ? "conditioned" : "conditioning off");
    start(profile, CacheMode::kPageCache);
    int on_plain = open(plain.file().c_str(), O_RDWR | O_DIRECT);
    int on_mount = open(path("f").c_str(), O_RDWR | O_DIRECT);
    ASSERT_GE(on_plain, 0);
    ASSERT_GE(on_mount, 0);
    char fill = charges_time(profile) ? 'c' : 'o';
    for (Case c : {Case{4096, 0}, Case{512, 512}, Case{4096, 1}, Case{100, 0}, Case{8192, 4096},
                   Case{3, 5}, Case{4096, 62 * 1024}, Case{4096, 64 * 1024}}) {
      std::memset(buf, fill++, 3 * 4096);
      errno = 0;
      const ssize_t want = pwrite(on_plain, buf, c.size, c.offset);
      const int want_errno = want < 0 ? errno : 0;
      errno = 0;
      const ssize_t got = pwrite(on_mount, buf, c.size, c.offset);
      const int got_errno = got < 0 ? errno : 0;
      EXPECT_EQ(got, want) << "size " << c.size << " at " << c.offset;
      EXPECT_EQ(got_errno, want_errno) << "size " << c.size << " at " << c.offset;
    }
    close(on_plain);
    close(on_mount);
    // The backing file holds what the plain directory's file does, byte for byte, as do reads
    // through the mount (the O_DIRECT one goes through the read twin).
    std::string want = slurp(plain.file());
    const int under = openat(backing, "f", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(under, 0);
    std::string got(want.size() + 1, '\0');
    const ssize_t n = pread(under, got.data(), got.size(), 0);
    close(under);
    ASSERT_GE(n, 0);
    got.resize(static_cast<size_t>(n));
    EXPECT_EQ(got, want);
    EXPECT_EQ(slurp(path("f")), want);
    ASSERT_TRUE(control_->stop(dir_, false).ok());
  }
}

TEST_F(MountFunctional, NoCacheModeSendsEveryReadToTheDaemon) {
  spit(path("f"), std::string(64 * 1024, 'z'));
  start(ssd_profile(0), CacheMode::kNoCache);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(slurp(path("f")).size(), 64u * 1024);
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok());
  EXPECT_GE(st->counters.commands[0], 5u);
  EXPECT_EQ(st->settings.cache, CacheMode::kNoCache);
}

TEST_F(MountFunctional, PageCacheHitsAreNotConditioned) {
  spit(path("f"), std::string(64 * 1024, 'z'));
  start(ssd_profile(0), CacheMode::kPageCache);
  EXPECT_EQ(slurp(path("f")).size(), 64u * 1024);  // fills the page cache
  auto first = control_->status(dir_);
  ASSERT_TRUE(first.ok());
  EXPECT_GE(first->counters.commands[0], 1u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(slurp(path("f")).size(), 64u * 1024);
  auto later = control_->status(dir_);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->counters.commands[0], first->counters.commands[0]);  // all hits
}

}  // namespace
}  // namespace diskcond::mount::testing
