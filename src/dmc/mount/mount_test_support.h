// Support for the integration tests that mount for real (header only: not part of the library).
// They skip when the machine cannot mount (not root, no /dev/fuse) and always clean up: a test
// that fails leaves neither a mount nor a directory behind.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/profile.h"
#include "dmc/mount/mount_control.h"
#include "dmc/mount/mount_table.h"

namespace diskcond::mount::testing {

inline constexpr uint64_t kMiB = 1 << 20;
inline constexpr uid_t kNobody = 65534;
inline constexpr gid_t kNogroup = 65534;

// An SSD profile: `rate_mib` MiB/s both ways (0 = unlimited), `access_us`, queue depth `qd`.
inline Profile ssd_profile(double rate_mib, double access_us = 0, uint32_t qd = 32) {
  Profile p;
  p.name = "test SSD";
  p.type = DiskType::kSSD;
  p.read_bytes_per_sec = p.write_bytes_per_sec = static_cast<uint64_t>(rate_mib * kMiB);
  p.access_time_ns = static_cast<int64_t>(access_us * 1000);
  p.queue_depth = qd;
  return p;
}

// Runs `body` in a forked child as uid/gid with supplementary `groups`; returns its exit code,
// or 255 when the switch failed or it died.
inline int run_as(uid_t uid, gid_t gid, const std::function<int()>& body,
                  const std::vector<gid_t>& groups = {}) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(groups.size(), groups.data()) != 0 || setresgid(gid, gid, gid) != 0 ||
        setresuid(uid, uid, uid) != 0) {
      _exit(255);
    }
    _exit(body());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

// /dev/fuse with mode 0666 while alive (an ordinary user needs it; most distributions have it),
// then the mode it had.
class FuseDeviceOpen {
 public:
  FuseDeviceOpen() {
    struct stat st {};
    if (::stat("/dev/fuse", &st) != 0) return;
    mode_ = st.st_mode & 07777;
    changed_ = mode_ != 0666 && ::chmod("/dev/fuse", 0666) == 0;
  }
  ~FuseDeviceOpen() {
    if (changed_) ::chmod("/dev/fuse", mode_);
  }
  FuseDeviceOpen(const FuseDeviceOpen&) = delete;
  FuseDeviceOpen& operator=(const FuseDeviceOpen&) = delete;
  mode_t original_mode() const { return mode_; }

 private:
  mode_t mode_ = 0;
  bool changed_ = false;
};

// Pressure stall information (Linux PSI, /proc/pressure/<resource>): the share of a stretch of
// time during which some task waited for the resource. A timing test measures its workload inside
// one; when the machine was that busy, "slower than the profile" says nothing about the mount.
//  - CpuPressure: a runnable task waited for a CPU (a reply's caller did too). Timing tests then
//    check only that the mount was never faster.
//  - IoPressure: a task waited for the machine's own disk (other programs' builds write to it),
//    which backing I/O such as a real fsync then waits for too.
template <const char* kFile>
class Pressure {
 public:
  Pressure() : start_us_(stalled_us()), start_ns_(monotonic_now_ns()) {}
  // Share of the time since construction (0..1); 0 when the kernel has no PSI.
  double share() const {
    const long long now_us = stalled_us();
    const int64_t elapsed_ns = monotonic_now_ns() - start_ns_;
    if (start_us_ < 0 || now_us < 0 || elapsed_ns <= 0) return 0;
    return static_cast<double>(now_us - start_us_) * 1000.0 / static_cast<double>(elapsed_ns);
  }
  // Above this share the bounds that only a quiet machine can keep are not checked.
  static constexpr double kBusy = 0.25;

 private:
  // "some ... total=<us>" of the file, or -1.
  static long long stalled_us() {
    FILE* f = fopen(kFile, "r");
    if (f == nullptr) return -1;
    long long total = -1;
    if (fscanf(f, "some avg10=%*f avg60=%*f avg300=%*f total=%lld", &total) != 1) total = -1;
    fclose(f);
    return total;
  }
  long long start_us_;
  int64_t start_ns_;
};

inline constexpr char kCpuPressureFile[] = "/proc/pressure/cpu";
inline constexpr char kIoPressureFile[] = "/proc/pressure/io";
using CpuPressure = Pressure<kCpuPressureFile>;
using IoPressure = Pressure<kIoPressureFile>;

class MountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mount tests need root";
    if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
    char tmpl[] = "/tmp/diskcond-mount-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    chmod(dir_.c_str(), 0755);
    control_ = make_fuse_mount_control();
  }

  void TearDown() override {
    if (dir_.empty()) return;
    if (is_conditioned_mount(dir_)) {
      static_cast<void>(control_->stop(dir_, true));
      if (is_conditioned_mount(dir_)) umount2(dir_.c_str(), MNT_DETACH);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  void start(const Profile& profile, CacheMode cache = CacheMode::kPageCache) {
    auto s = control_->start(dir_, MountSettings{profile, cache});
    ASSERT_TRUE(s.ok()) << s.error();
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
  std::unique_ptr<MountControl> control_;
};

}  // namespace diskcond::mount::testing
