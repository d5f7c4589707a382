// FUSE over io_uring through a real mount (fuse_uring.h), DISKCOND_FUSE_URING=1 in the daemon's
// environment. Which test runs depends on the fuse module's enable_uring, which tests never
// change: with N the mount falls back to /dev/fuse and says why in one line of its log; with Y its
// ring threads serve the requests. The whole mount suite runs over the rings with
// `DISKCOND_FUSE_URING=1 build/diskcond_tests --gtest_filter='Mount*'` (the daemons inherit it).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dmc/mount/mount_test_support.h"
#include "dmc/mount/run_paths.h"

namespace diskcond::mount::testing {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

bool write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

bool uring_enabled() {
  return first_line("/sys/module/fuse/parameters/enable_uring") == "Y";
}

// CPU time (ns, /proc/<pid>/task/<tid>/schedstat) of each of `pid`'s threads named dmc-uring-*.
std::vector<unsigned long long> ring_thread_cpu_ns(pid_t pid) {
  std::vector<unsigned long long> times;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(tasks.c_str());
  if (d == nullptr) return times;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string task = tasks + "/" + e->d_name;
    if (first_line(task + "/comm").rfind("dmc-uring-", 0) != 0) continue;
    times.push_back(std::strtoull(first_line(task + "/schedstat").c_str(), nullptr, 10));
  }
  closedir(d);
  return times;
}

unsigned long long sum(const std::vector<unsigned long long>& v) {
  unsigned long long s = 0;
  for (auto x : v) s += x;
  return s;
}

class MountFuseUring : public MountTest {
 protected:
  void SetUp() override {
    MountTest::SetUp();
    if (const char* old = std::getenv("DISKCOND_FUSE_URING")) saved_ = old;
    setenv("DISKCOND_FUSE_URING", "1", 1);
  }
  void TearDown() override {
    if (saved_.empty()) {
      unsetenv("DISKCOND_FUSE_URING");
    } else {
      setenv("DISKCOND_FUSE_URING", saved_.c_str(), 1);
    }
    const std::string log = dir_.empty() ? "" : run_paths_for(dir_).log;
    MountTest::TearDown();
    if (!log.empty()) unlink(log.c_str());  // kept by the daemon: not empty
  }
  std::string log_text() const {
    std::ifstream in(run_paths_for(dir_).log);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  pid_t daemon_pid() {
    auto st = control_->status(dir_);
    return st.ok() ? st->daemon_pid : 0;
  }
  std::string saved_;
};

TEST_F(MountFuseUring, WithoutTheKernelsOfferTheMountServesDevFuseAndSaysWhy) {
  if (uring_enabled()) GTEST_SKIP() << "the fuse module's enable_uring is Y here";
  start(ssd_profile(0));
  ASSERT_TRUE(write_text(path("f"), "through /dev/fuse"));
  EXPECT_EQ(first_line(path("f")), "through /dev/fuse");
  EXPECT_TRUE(ring_thread_cpu_ns(daemon_pid()).empty());
  const std::string log = log_text();
  EXPECT_NE(log.find("DISKCOND_FUSE_URING=1, but "), std::string::npos) << log;
  EXPECT_NE(log.find("enable_uring"), std::string::npos) << log;
  EXPECT_EQ(log.find('\n'), log.size() - 1) << "one line: " << log;
}

TEST_F(MountFuseUring, RingThreadsServeTheRequestsAndTheBytesRoundTrip) {
  if (!uring_enabled()) GTEST_SKIP() << "the fuse module's enable_uring is N here";
  start(ssd_profile(0));
  const pid_t pid = daemon_pid();
  ASSERT_GT(pid, 0);
  const auto before = ring_thread_cpu_ns(pid);
  ASSERT_EQ(before.size(), static_cast<size_t>(sysconf(_SC_NPROCESSORS_CONF))) << "one per CPU";
  // Names, a 1 MiB direct write (the payload at its largest) and direct reads back.
  std::string data(1 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 131) >> 3);
  ASSERT_EQ(mkdir(path("d").c_str(), 0755), 0);
  void* buffer = nullptr;
  ASSERT_EQ(posix_memalign(&buffer, 4096, data.size()), 0);
  std::memcpy(buffer, data.data(), data.size());
  int fd = open(path("d/f").c_str(), O_CREAT | O_WRONLY | O_DIRECT, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(pwrite(fd, buffer, data.size(), 0), static_cast<ssize_t>(data.size()));
  close(fd);
  std::memset(buffer, 0, data.size());
  fd = open(path("d/f").c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(fd, 0);
  for (size_t at = 0; at < data.size(); at += 4096)
    ASSERT_EQ(pread(fd, static_cast<char*>(buffer) + at, 4096, at), 4096);
  close(fd);
  EXPECT_EQ(std::memcmp(buffer, data.data(), data.size()), 0);
  free(buffer);
  EXPECT_EQ(rename(path("d/f").c_str(), path("d/g").c_str()), 0);
  EXPECT_EQ(access(path("d/g").c_str(), R_OK), 0);
  EXPECT_EQ(unlink(path("d/g").c_str()), 0);
  EXPECT_EQ(rmdir(path("d").c_str()), 0);
  EXPECT_GT(sum(ring_thread_cpu_ns(pid)), sum(before));
  EXPECT_EQ(log_text().find("DISKCOND_FUSE_URING"), std::string::npos) << log_text();
}

}  // namespace
}  // namespace diskcond::mount::testing
