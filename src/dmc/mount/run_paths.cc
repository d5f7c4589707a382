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

#include "posix/files.h"

namespace diskcond::mount {
namespace {

constexpr size_t kSocketPathMax = sizeof(sockaddr_un{}.sun_path) - 1;

}  // namespace

std::string run_directory() {
  const char* env = std::getenv("DISKCOND_RUN_DIR");
  return env && *env ? env : "/run/diskcond";
}

std::string escape_mount_point(const std::string& path) {
  return posix::escape_path(path);
}

std::string run_directory_of(uid_t owner) {
  if (owner == 0) return run_directory();
  const std::string id = std::to_string(owner);
  const char* env = std::getenv("DISKCOND_RUN_DIR");
  return env && *env ? std::string(env) + "/user-" + id : "/tmp/diskcond-" + id;
}

RunPaths run_paths_for(const std::string& canonical_path, uid_t owner) {
  return run_paths_in(run_directory_of(owner), canonical_path);
}

RunPaths run_paths_in(const std::string& dir, const std::string& canonical_path) {
  std::string name = escape_mount_point(canonical_path);
  if (dir.size() + 1 + name.size() + 5 > kSocketPathMax) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "h-%016llx",
                  static_cast<unsigned long long>(posix::fnv1a_64(canonical_path)));
    name = buf;
  }
  const std::string base = dir + "/" + name;
  return RunPaths{base + ".sock", base + ".json", base + ".log"};
}

std::string private_run_base() {
  const std::string run = run_directory();
  if (geteuid() == 0 || access(run.c_str(), W_OK) == 0) return run;
  for (const char* name : {"XDG_RUNTIME_DIR", "TMPDIR"}) {
    const char* dir = std::getenv(name);
    if (dir != nullptr && *dir == '/' && access(dir, W_OK) == 0) return dir;
  }
  return "/tmp";
}

Status ensure_run_directory(uid_t owner) {
  const std::string dir = run_directory_of(owner);
  const mode_t mode = owner == 0 ? 0755 : 0711;
  if (mkdir(dir.c_str(), mode) < 0 && errno != EEXIST) {
    return make_error("cannot create " + dir + ": " + std::strerror(errno));
  }
  if (owner == 0) return ok_status();
  struct stat st {};
  if (lstat(dir.c_str(), &st) < 0)
    return make_error("cannot read " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode) || st.st_uid != owner || (st.st_mode & 022) != 0) {
    return make_error(dir + " is not a directory of uid " + std::to_string(owner) +
                      " that only it may write (owner uid " + std::to_string(st.st_uid) +
                      "); remove it and try again");
  }
  if ((st.st_mode & 0777) != mode && chmod(dir.c_str(), mode) < 0) {
    return make_error("cannot chmod " + dir + ": " + std::strerror(errno));
  }
  return ok_status();
}

Status write_state(const std::string& path, const DaemonState& s) {
  const std::string text =
      nlohmann::json{{"pid", s.pid}, {"mount_point", s.mount_point}, {"socket", s.socket}}.dump() +
      "\n";
  if (int r = posix::replace_file(path, text, 0644); r < 0) {
    return make_error("cannot write " + path + ": " + std::strerror(-r));
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
