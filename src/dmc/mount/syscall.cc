#include "dmc/mount/syscall.h"

#include <unistd.h>

namespace diskcond::mount {

std::string proc_fd_path(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

int write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace diskcond::mount
