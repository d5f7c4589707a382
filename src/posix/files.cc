#include "posix/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>

#include "posix/unique_fd.h"

namespace diskcond::posix {

int write_all(int fd, std::string_view text) {
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

ssize_t pwrite_all(int fd, const char* data, size_t size, off_t offset) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::pwrite(fd, data + done, size - done, offset + static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return done > 0 ? static_cast<ssize_t>(done) : -errno;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

int replace_file(const std::string& path, std::string_view text, mode_t mode) {
  const std::string temp = path + ".tmp";
  int r = 0;
  {
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
    if (!fd.valid()) return -errno;
    r = write_all(fd.get(), text);
    if (r == 0 && ::fsync(fd.get()) != 0) r = -errno;
  }
  if (r == 0 && ::rename(temp.c_str(), path.c_str()) != 0) r = -errno;
  if (r != 0) ::unlink(temp.c_str());
  return r;
}

std::string escape_path(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const size_t start = path.find_first_not_of('/');
  if (start == std::string_view::npos) return "-";
  std::string out;
  for (size_t i = start; i < path.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(path[i]);
    if (c == '/') {
      out += '-';
    } else if (std::isalnum(c) || c == '_' || c == ':' || (c == '.' && i != start)) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

uint64_t fnv1a_64(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace diskcond::posix
