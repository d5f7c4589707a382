#include "posix/cpu_latency.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace diskcond::posix {

int request_cpu_latency(int32_t max_latency_us) {
  UniqueFd fd(::open(kCpuLatencyDevice, O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return -errno;
  // The device takes the value as a binary s32 (or as a hex string); a short write is an error.
  const ssize_t n = ::write(fd.get(), &max_latency_us, sizeof(max_latency_us));
  if (n < 0) return -errno;
  if (n != static_cast<ssize_t>(sizeof(max_latency_us))) return -EIO;
  return fd.release();
}

int64_t current_cpu_latency_limit_us() {
  // Every open adds a request of no limit (the default) until it is written to: none here.
  UniqueFd fd(::open(kCpuLatencyDevice, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return -errno;
  int32_t value = 0;
  const ssize_t n = ::read(fd.get(), &value, sizeof(value));
  if (n < 0) return -errno;
  if (n != static_cast<ssize_t>(sizeof(value))) return -EIO;
  return value;
}

bool cpuidle_driver_present(const char* driver_file) {
  std::ifstream in(driver_file);
  std::string driver;
  if (!std::getline(in, driver)) return false;
  return !driver.empty() && driver != "none";
}

int request_idle_polling(const char* driver_file) {
  if (!cpuidle_driver_present(driver_file)) return -ENODEV;
  return request_cpu_latency(0);
}

}  // namespace diskcond::posix
