#include "dmc/mount/run_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dmc/mount/syscall.h"

namespace diskcond::mount {
namespace {

constexpr size_t kSocketPathMax = sizeof(sockaddr_un{}.sun_path) - 1;

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

std::string run_directory() {
  const char* env = std::getenv("DISKCOND_RUN_DIR");
  return env && *env ? env : "/run/diskcond";
}

std::string escape_mount_point(const std::string& path) {
  std::string out;
  size_t start = 0;
  while (start < path.size() && path[start] == '/') ++start;
  if (start == path.size()) return "-";
  for (size_t i = start; i < path.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(path[i]);
    if (c == '/') {
      out += '-';
    } else if (std::isalnum(c) || c == '_' || (c == '.' && i != start)) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

RunPaths run_paths_for(const std::string& canonical_path) {
  const std::string dir = run_directory();
  std::string name = escape_mount_point(canonical_path);
  if (dir.size() + 1 + name.size() + 5 > kSocketPathMax) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "h-%016llx",
                  static_cast<unsigned long long>(fnv1a(canonical_path)));
    name = buf;
  }
  const std::string base = dir + "/" + name;
  return RunPaths{base + ".sock", base + ".json", base + ".log"};
}

Status ensure_run_directory() {
  const std::string dir = run_directory();
  if (mkdir(dir.c_str(), 0755) < 0 && errno != EEXIST) {
    return make_error("cannot create " + dir + ": " + std::strerror(errno));
  }
  return ok_status();
}

Status write_state(const std::string& path, const DaemonState& s) {
  const std::string text =
      nlohmann::json{{"pid", s.pid}, {"mount_point", s.mount_point}, {"socket", s.socket}}.dump() +
      "\n";
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return make_error("cannot write " + tmp + ": " + std::strerror(errno));
  int r = write_all(fd, text);
  close(fd);
  if (r < 0 || rename(tmp.c_str(), path.c_str()) < 0) {
    unlink(tmp.c_str());
    return make_error("cannot write " + path + ": " + std::strerror(r < 0 ? -r : errno));
  }
  return ok_status();
}

Result<DaemonState> read_state(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error("no state file " + path);
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error("malformed state file " + path);
  auto pid = j.find("pid");
  auto mp = j.find("mount_point");
  auto sock = j.find("socket");
  if (pid == j.end() || !pid->is_number_integer() || mp == j.end() || !mp->is_string() ||
      sock == j.end() || !sock->is_string()) {
    return make_error("malformed state file " + path);
  }
  return DaemonState{pid->get<pid_t>(), mp->get<std::string>(), sock->get<std::string>()};
}

void remove_run_files(const RunPaths& paths) {
  unlink(paths.socket.c_str());
  unlink(paths.state.c_str());
  struct stat st;
  if (stat(paths.log.c_str(), &st) == 0 && st.st_size == 0) unlink(paths.log.c_str());
}

}  // namespace diskcond::mount
