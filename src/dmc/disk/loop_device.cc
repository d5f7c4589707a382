#include "dmc/disk/loop_device.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace diskcond::disk {
namespace {

// Closes a descriptor on every way out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

int open_device(const std::string& device, int flags) {
  int fd = ::open(device.c_str(), flags | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

}  // namespace

std::string loop_device_path(int number) {
  return "/dev/loop" + std::to_string(number);
}

int loop_number(const std::string& device) {
  const std::string prefix = "/dev/loop";
  if (device.size() <= prefix.size() || device.compare(0, prefix.size(), prefix) != 0) return -1;
  int n = 0;
  for (size_t i = prefix.size(); i < device.size(); ++i) {
    char c = device[i];
    if (c < '0' || c > '9' || n > 1000000) return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

int loop_attach(int backing_fd, uint32_t flags, uint32_t block_bytes, const std::string& name) {
  Fd control(open_device(kLoopControl, O_RDWR));
  if (control.get() < 0) return control.get();
  for (int attempt = 0; attempt < 16; ++attempt) {
    int number = ::ioctl(control.get(), LOOP_CTL_GET_FREE);
    if (number < 0) return -errno;
    Fd device(open_device(loop_device_path(number), O_RDWR));
    if (device.get() == -ENOENT) continue;  // the node is not there yet; ask again
    if (device.get() < 0) return device.get();
    loop_config config;
    std::memset(&config, 0, sizeof config);
    config.fd = static_cast<uint32_t>(backing_fd);
    config.block_size = block_bytes;
    config.info.lo_flags = flags;
    std::strncpy(reinterpret_cast<char*>(config.info.lo_file_name), name.c_str(), LO_NAME_SIZE - 1);
    if (::ioctl(device.get(), LOOP_CONFIGURE, &config) == 0) return number;
    if (errno != EBUSY) return -errno;  // EBUSY: another process bound it first
  }
  return -EBUSY;
}

int loop_detach(const std::string& device) {
  Fd fd(open_device(device, O_RDONLY));
  if (fd.get() < 0) return fd.get();
  return ::ioctl(fd.get(), LOOP_CLR_FD) == 0 ? 0 : -errno;
}

int loop_binding(const std::string& device, LoopBinding* out) {
  Fd fd(open_device(device, O_RDONLY));
  if (fd.get() < 0) return fd.get();
  loop_info64 info;
  std::memset(&info, 0, sizeof info);
  if (::ioctl(fd.get(), LOOP_GET_STATUS64, &info) != 0) return -errno;
  out->backing_dev = static_cast<dev_t>(info.lo_device);
  out->backing_ino = static_cast<ino_t>(info.lo_inode);
  out->flags = info.lo_flags;
  return 0;
}

int loop_set_autoclear(const std::string& device) {
  Fd fd(open_device(device, O_RDONLY));
  if (fd.get() < 0) return fd.get();
  loop_info64 info;
  std::memset(&info, 0, sizeof info);
  if (::ioctl(fd.get(), LOOP_GET_STATUS64, &info) != 0) return -errno;
  info.lo_flags |= LO_FLAGS_AUTOCLEAR;
  return ::ioctl(fd.get(), LOOP_SET_STATUS64, &info) == 0 ? 0 : -errno;
}

bool loop_bound(int number) {
  struct stat st {};
  return ::stat(("/sys/block/loop" + std::to_string(number) + "/loop").c_str(), &st) == 0;
}

}  // namespace diskcond::disk
