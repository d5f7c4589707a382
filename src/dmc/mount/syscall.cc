#include "dmc/mount/syscall.h"

#include <unistd.h>

namespace diskcond::mount {

std::string proc_fd_path(int fd) {
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace diskcond::mount
