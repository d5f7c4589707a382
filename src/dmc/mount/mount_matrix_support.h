// Support for the differential permission matrix (header only: not part of the library).
// A script is a list of steps, each one system call made by one actor (a non-root uid/gid with
// supplementary groups and a umask) on paths relative to a root directory. run_script() runs the
// same script under two roots, a plain directory and a conditioned mount of an identical copy,
// and records per step the outcome (0 or errno) and, as root, the state of the paths the step
// watches. Identical records mean the mount answers exactly like the backing filesystem.
#pragma once

#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {

struct Actor {
  const char* name;
  uid_t uid;
  gid_t gid;
  std::vector<gid_t> groups;
};

struct Step {
  const Actor* actor;
  mode_t umask;
  std::string name;
  // Runs in a child as the actor, with cwd = the root; returns 0 or -1 with errno set.
  std::function<int()> call;
  std::vector<std::string> watch;  // relative paths whose state is recorded after the step
  const char* xattr = nullptr;     // also record this xattr's value on watch[0]
  bool mtime = false;  // also record watch[0]'s mtime when the step succeeds (explicit times)
};

// One step's outcome: "ok" or the errno name, then the watched paths' state.
struct Record {
  std::string step;
  std::string outcome;
  std::string state;
};

inline std::string errno_text(int err) {
  if (err == 0) return "ok";
  const char* name = strerrorname_np(err);
  return name ? name : "errno " + std::to_string(err);
}

// The state of `rel` under `root` as root sees it: type+mode, owner, and for non-directories
// size and link count (directory sizes are the filesystem's business).
inline std::string path_state(const std::string& root, const std::string& rel, const char* xattr,
                              bool with_mtime) {
  struct stat st;
  const std::string full = root + "/" + rel;
  if (lstat(full.c_str(), &st) != 0) return rel + ": " + errno_text(errno);
  std::ostringstream out;
  out << rel << ": mode=" << std::oct << st.st_mode << std::dec << " uid=" << st.st_uid
      << " gid=" << st.st_gid;
  if (!S_ISDIR(st.st_mode)) out << " size=" << st.st_size << " nlink=" << st.st_nlink;
  if (with_mtime) out << " mtime=" << st.st_mtim.tv_sec << "." << st.st_mtim.tv_nsec;
  if (xattr) {
    char value[64] = {};
    const ssize_t n = lgetxattr(full.c_str(), xattr, value, sizeof(value) - 1);
    out << " " << xattr << "=" << (n < 0 ? errno_text(errno) : std::string(value, n));
  }
  return out.str();
}

// The watched paths' states after `step` (its exit code `code`), as `observer` sees them (root
// when null; a user's own mount shows itself to no one else, root included).
inline std::string watched_state(const std::string& root, const Step& step, int code,
                                 const Actor* observer) {
  auto states = [&] {
    std::string text;
    for (size_t i = 0; i < step.watch.size(); ++i) {
      text += (i ? "; " : "") + path_state(root, step.watch[i], i == 0 ? step.xattr : nullptr,
                                           i == 0 && step.mtime && code == 0);
    }
    return text;
  };
  if (observer == nullptr) return states();
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "pipe failed";
  run_as(
      observer->uid, observer->gid,
      [&] {
        const std::string text = states();
        return write(pipe_fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size())
                   ? 0
                   : 1;
      },
      observer->groups);
  close(pipe_fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  close(pipe_fds[0]);
  return text;
}

// REQUIRES: root (the children switch to each actor). Steps run in order, one child each; the
// states are recorded as `observer` sees them (root when null).
inline std::vector<Record> run_script(const std::string& root, const std::vector<Step>& script,
                                      const Actor* observer = nullptr) {
  std::vector<Record> records;
  for (const Step& step : script) {
    const int code = run_as(
        step.actor->uid, step.actor->gid,
        [&] {
          umask(step.umask);
          if (chdir(root.c_str()) != 0) return 254;
          return step.call() == 0 ? 0 : errno;
        },
        step.actor->groups);
    Record r{std::string(step.actor->name) + " " + step.name, errno_text(code), ""};
    if (code == 254 || code == 255) r.outcome = "child failed (" + std::to_string(code) + ")";
    r.state = watched_state(root, step, code, observer);
    records.push_back(r);
  }
  return records;
}

// A readable list of the steps whose records differ; empty when they all agree.
inline std::string diff_records(const std::vector<Record>& plain,
                                const std::vector<Record>& mounted) {
  std::ostringstream out;
  if (plain.size() != mounted.size())
    out << "step counts differ: plain " << plain.size() << ", mount " << mounted.size() << "\n";
  for (size_t i = 0; i < std::min(plain.size(), mounted.size()); ++i) {
    const Record& a = plain[i];
    const Record& b = mounted[i];
    if (a.outcome == b.outcome && a.state == b.state && a.step == b.step) continue;
    out << "step " << i << " [" << a.step << "]\n"
        << "  plain: " << a.outcome << " | " << a.state << "\n"
        << "  mount: " << b.outcome << " | " << b.state << "\n";
  }
  return out.str();
}

}  // namespace diskcond::mount::testing
