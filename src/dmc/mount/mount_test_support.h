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

#include <algorithm>
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
using IoPressure = Pressure<kIoPressureFile>;

// The share of all CPUs' time the hypervisor gave to others (steal, /proc/stat) since
// construction; 0 where the kernel counts none.
class CpuSteal {
 public:
  CpuSteal() : start_(read()) {}
  double share() const {
    const Ticks now = read();
    const long long total = now.total - start_.total;
    return total > 0 ? static_cast<double>(now.steal - start_.steal) / static_cast<double>(total)
                     : 0;
  }

 private:
  struct Ticks {
    long long steal = 0, total = 0;
  };
  static Ticks read() {
    Ticks t;
    FILE* f = fopen("/proc/stat", "r");
    if (f == nullptr) return t;
    long long v[8] = {};  // user nice system idle iowait irq softirq steal
    if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]) == 8) {
      for (long long x : v) t.total += x;
      t.steal = v[7];
    }
    fclose(f);
    return t;
  }
  Ticks start_;
};

// CPU: PSI's share, or the hypervisor's steal, which PSI (waits inside this machine) does not
// see. A virtual CPU taken away a tenth of the time already delays timer wake-ups and callers by
// far more than a model's microseconds: measured on the 2-core CI VM (fio 4 KiB QD1 reads, Slow
// SSD, 8 s each), 19% and 24% steal gave 3437 and 2747 IOPS where 5% gave 5164. So share() is
// the larger of the PSI share and the steal share scaled to reach kBusy at kStealBusy.
class CpuPressure {
 public:
  static constexpr double kBusy = Pressure<kCpuPressureFile>::kBusy;
  static constexpr double kStealBusy = 0.10;
  double share() const { return std::max(psi_.share(), steal_.share() * (kBusy / kStealBusy)); }

 private:
  Pressure<kCpuPressureFile> psi_;
  CpuSteal steal_;
};

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
