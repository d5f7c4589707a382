// Safety refusals on a real loop device. Skips unless run as root with losetup and mkfs.ext4.
#include "rawio/safety.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "rawio/test_util.h"

namespace diskcond::rawio {
namespace {

int shell(const std::string& cmd) {
  int status = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string shell_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// A 32 MiB loop device over a sparse file in a scratch directory, detached afterwards.
class RawioLoopDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root for losetup";
    if (shell("command -v losetup && command -v mkfs.ext4") != 0)
      GTEST_SKIP() << "no losetup/mkfs.ext4";
    image_ = dir_.file("disk.img");
    if (shell("truncate -s 32M " + image_) != 0) GTEST_SKIP() << "cannot make image";
    device_ = shell_output("losetup -f --show " + image_);
    if (device_.rfind("/dev/loop", 0) != 0) GTEST_SKIP() << "losetup failed: " << device_;
  }
  void TearDown() override {
    if (mounted_) shell("umount " + dir_.file("mnt"));
    if (!device_.empty() && device_.rfind("/dev/loop", 0) == 0) shell("losetup -d " + device_);
  }

  Target device_target() {
    auto t = inspect_target(device_);
    EXPECT_TRUE(t.ok()) << t.error();
    return *t;
  }
  void make_ext4() { ASSERT_EQ(shell("mkfs.ext4 -q -F " + device_), 0); }
  void mount_it() {
    ASSERT_EQ(
        shell("mkdir -p " + dir_.file("mnt") + " && mount " + device_ + " " + dir_.file("mnt")), 0);
    mounted_ = true;
  }
  // rawio's exit code for `args` on the device; its stderr goes to err.
  int rawio(const std::string& args, std::string* err = nullptr) {
    std::string err_file = dir_.file("err");
    int status =
        std::system((std::string(RAWIO_BINARY) + " --no-progress -n 1m -s 4k -p 2 -t 200ms " +
                     args + " " + device_ + " >/dev/null 2>" + err_file)
                        .c_str());
    if (err) *err = shell_output("cat " + err_file);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  testing::ScratchDir dir_;
  std::string image_;
  std::string device_;
  bool mounted_ = false;
};

TEST_F(RawioLoopDevice, InspectFindsSizeAndSector) {
  Target t = device_target();
  EXPECT_EQ(t.kind, TargetKind::kBlockDevice);
  EXPECT_EQ(t.size_bytes, 32u << 20);
  EXPECT_EQ(t.sector_bytes, 512u);
}

TEST_F(RawioLoopDevice, WritesRefusedOnAFileSystemAndTheDeviceIsUntouched) {
  make_ext4();
  WriteVerdict v = check_write_allowed(device_target(), {});
  EXPECT_FALSE(v.allowed);
  EXPECT_NE(v.reason.find("file system signature (ext4)"), std::string::npos) << v.reason;
  std::string err;
  EXPECT_EQ(rawio("-a", &err), 3);
  EXPECT_NE(err.find("--force-write=" + device_), std::string::npos) << err;
  EXPECT_EQ(shell_output("blkid -o value -s TYPE " + device_), "ext4");
  EXPECT_EQ(rawio("-R -S"), 0) << "read tests are never refused";
}

TEST_F(RawioLoopDevice, WritesRefusedWhenMounted) {
  make_ext4();
  mount_it();
  WriteVerdict v = check_write_allowed(device_target(), {});
  EXPECT_FALSE(v.allowed);
  EXPECT_NE(v.reason.find("mounted on " + dir_.file("mnt")), std::string::npos) << v.reason;
  std::string err;
  EXPECT_EQ(rawio("-w", &err), 3);
  EXPECT_NE(err.find("mounted on"), std::string::npos) << err;
}

TEST_F(RawioLoopDevice, WritesRefusedOnAPartitionTable) {
  // A DOS label with one Linux partition from sector 2048 to the end.
  uint8_t mbr[512] = {};
  uint8_t* entry = mbr + 446;
  entry[4] = 0x83;
  uint32_t start = 2048, count = (32u << 20) / 512 - 2048;
  memcpy(entry + 8, &start, 4);
  memcpy(entry + 12, &count, 4);
  mbr[510] = 0x55;
  mbr[511] = 0xaa;
  int fd = ::open(device_.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, mbr, sizeof mbr, 0), 512);
  ::fsync(fd);
  ::close(fd);
  WriteVerdict v = check_write_allowed(device_target(), {});
  EXPECT_FALSE(v.allowed);
  EXPECT_NE(v.reason.find("partition table (dos)"), std::string::npos) << v.reason;
}

TEST_F(RawioLoopDevice, ForceNamingTheDeviceAllowsWrites) {
  make_ext4();
  WriteVerdict forced = check_write_allowed(device_target(), {device_});
  EXPECT_TRUE(forced.allowed);
  EXPECT_TRUE(forced.forced);
  EXPECT_FALSE(check_write_allowed(device_target(), {"/dev/null", image_}).allowed)
      << "only the device itself counts";
  std::string err;
  EXPECT_EQ(rawio("-w --force-write=" + device_, &err), 0) << err;
  // The sequential write went over the first MiB, superblock included.
  EXPECT_NE(shell_output("blkid -o value -s TYPE " + device_), "ext4");
}

TEST_F(RawioLoopDevice, ForceNamingAnotherDeviceDoesNotCount) {
  make_ext4();
  EXPECT_EQ(rawio("-W --force-write=/dev/null"), 3);
}

TEST_F(RawioLoopDevice, ABlankDeviceNeedsNoForce) {
  WriteVerdict v = check_write_allowed(device_target(), {});
  EXPECT_TRUE(v.allowed);
  EXPECT_FALSE(v.forced);
  std::string err;
  EXPECT_EQ(rawio("-a -v 1", &err), 0) << err;
}

TEST_F(RawioLoopDevice, ExclusiveWriteOpenFailsWhileMounted) {
  // What guards the gap between the checks and the test: O_EXCL on a mounted device is EBUSY.
  make_ext4();
  Target t = device_target();
  t.exclusive_writes = true;
  int fd = ::open(device_.c_str(), open_flags(t, true));
  ASSERT_GE(fd, 0) << strerror(errno);
  ::close(fd);
  mount_it();
  EXPECT_EQ(::open(device_.c_str(), open_flags(t, true)), -1);
  EXPECT_EQ(errno, EBUSY);
  EXPECT_GE(fd = ::open(device_.c_str(), open_flags(t, false)), 0) << "reads do not need it";
  ::close(fd);
}

TEST(RawioSafety, ExistingFilesNeedForceFilesRawioMakesDoNot) {
  testing::ScratchDir dir;
  testing::write_zero_file(dir.file("f"), 4096);
  auto t = inspect_target(dir.file("f"));
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(check_write_allowed(*t, {}).allowed);
  EXPECT_TRUE(check_write_allowed(*t, {dir.path() + "/./f"}).allowed)
      << "same file, other spelling";
  auto d = inspect_target(dir.path());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kind, TargetKind::kDirectory);
  EXPECT_TRUE(d->create);
  EXPECT_TRUE(check_write_allowed(*d, {}).allowed);
  auto fresh = inspect_target(dir.file("new"));
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(fresh->create);
  EXPECT_TRUE(check_write_allowed(*fresh, {}).allowed);
}

}  // namespace
}  // namespace diskcond::rawio
