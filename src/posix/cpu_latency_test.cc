#include "posix/cpu_latency.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

namespace diskcond::posix {
namespace {

TEST(CpuLatency, ARequestHoldsWhileItsDescriptorIsOpen) {
  const int64_t before = current_cpu_latency_limit_us();
  if (before == -EACCES || before == -EPERM || before == -ENOENT)
    GTEST_SKIP() << kCpuLatencyDevice << " cannot be used here (needs root)";
  ASSERT_GE(before, 0);
  {
    UniqueFd held(request_cpu_latency(0));
    ASSERT_TRUE(held.valid()) << "request_cpu_latency: " << -held.get();
    EXPECT_EQ(current_cpu_latency_limit_us(), 0);
  }
  // Withdrawn with the descriptor: back to what others asked for before (none: 2e9 us).
  EXPECT_EQ(current_cpu_latency_limit_us(), before);
}

// Driver files in a temporary directory, removed with it.
class DriverFiles {
 public:
  DriverFiles() {
    char dir[] = "/tmp/diskcond-cpuidle-XXXXXX";
    if (mkdtemp(dir) != nullptr) dir_ = dir;
  }
  ~DriverFiles() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  // A file holding `text`, or the path of no file for nullptr.
  std::string with(const char* text) {
    const std::string path = dir_ + "/driver" + std::to_string(++count_);
    if (text != nullptr) std::ofstream(path) << text;
    return path;
  }

 private:
  std::string dir_ = "/nonexistent";
  int count_ = 0;
};

TEST(CpuLatency, IdleCpusPollOnlyWhereACpuidleDriverIsPresent) {
  DriverFiles files;
  EXPECT_TRUE(cpuidle_driver_present(files.with("haltpoll\n").c_str()));
  EXPECT_TRUE(cpuidle_driver_present(files.with("intel_idle\n").c_str()));
  EXPECT_FALSE(cpuidle_driver_present(files.with("none\n").c_str()));
  EXPECT_FALSE(cpuidle_driver_present(files.with("").c_str()));
  EXPECT_FALSE(cpuidle_driver_present(files.with(nullptr).c_str()));
  // Refused before the device is opened, so the same for any user.
  EXPECT_EQ(request_idle_polling(files.with("none\n").c_str()), -ENODEV);
  EXPECT_EQ(request_idle_polling(files.with(nullptr).c_str()), -ENODEV);
}

}  // namespace
}  // namespace diskcond::posix
