#include "dmc/mount/fusermount.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace diskcond::mount {

std::string fusermount_path() {
  for (const char* path : {"/usr/bin/fusermount3", "/bin/fusermount3"}) {
    if (access(path, X_OK) == 0) return path;
  }
  return "";
}

int fusermount_unmount(const std::string& mount_point, bool lazy) {
  const std::string binary = fusermount_path();
  if (binary.empty()) return -ENOENT;
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) < 0) return -errno;
  const char* lazy_argv[] = {binary.c_str(), "-u", "-z", "--", mount_point.c_str(), nullptr};
  const char* plain_argv[] = {binary.c_str(), "-u", "--", mount_point.c_str(), nullptr};
  const char* const* argv = lazy ? lazy_argv : plain_argv;
  const pid_t child = fork();
  if (child == 0) {
    dup2(err_pipe[1], STDERR_FILENO);  // dup2 clears O_CLOEXEC on the copy
    execv(argv[0], const_cast<char* const*>(argv));
    _exit(127);
  }
  close(err_pipe[1]);
  // fusermount3 says why in one line ("...: Device or resource busy"); its exit code is 1 always.
  std::string said;
  char buf[256];
  for (ssize_t n; (n = read(err_pipe[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    said.append(buf, static_cast<size_t>(n));
  }
  close(err_pipe[0]);
  if (child < 0) return -EAGAIN;
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (said.find("busy") != std::string::npos) return -EBUSY;
  return -EPERM;
}

}  // namespace diskcond::mount
