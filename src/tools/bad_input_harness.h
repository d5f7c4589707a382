// What the bad-input sweeps (dmc_bad_input_test.cc, rawio_bad_input_test.cc) share: running a
// built binary with an exact argv and environment, fingerprinting everything a command could
// change, and the check every rejected command must pass.
//
// The contract checked (docs/dmc.md, man/rawio.1 "EXIT STATUS"): a rejected command exits with
// its class's code, prints exactly one line on stderr starting with "<tool>: " (a hint such as
// "(see 'dmc start --help')" is part of that line, never a line of its own), prints nothing on
// stdout (also with -json/--json), and changes nothing: no file or directory under the test's
// world is added, removed or modified, and no mount appears under it.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace diskcond::tools {

struct ProgramRun {
  int code = -1;  // exit status; -1 when killed by a signal or not started
  std::string out, err;
};

inline std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `binary` with exactly `args` (no shell: empty and odd words arrive as they are) and
// exactly `env`, in `cwd` (so relative paths land where the test can see them), stdout and
// stderr captured through files in `io_dir`. With `uid` set, the child drops to that user and
// group (of the same number, no supplementary groups) first. A run longer than `limit` is killed
// (code -1) and its address space is capped at `address_space_bytes`, so an input that is wrongly
// accepted can neither hang the sweep nor eat the (shared) machine's memory. (Not in a sanitizer
// build: its binaries map far more address space than any cap that would still protect the
// machine.)
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
inline ProgramRun run_program(const std::string& binary, const std::vector<std::string>& args,
                              const std::vector<std::string>& env, const std::string& cwd,
                              const std::string& io_dir, std::optional<uid_t> uid = std::nullopt,
                              rlim_t address_space_bytes = rlim_t{4} << 30,
                              std::chrono::seconds limit = std::chrono::seconds(60)) {
  std::vector<std::string> argv_text = {binary};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_text) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string out_path = io_dir + "/stdout", err_path = io_dir + "/stderr";
  ProgramRun run;
  pid_t pid = ::fork();
  if (pid < 0) return run;
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0 || ::chdir(cwd.c_str()) != 0)
      ::_exit(126);
    if (uid && (::setgroups(0, nullptr) != 0 || ::setgid(*uid) != 0 || ::setuid(*uid) != 0))
      ::_exit(126);
    if (!kSanitizedBuild) {  // sanitizers reserve terabytes of shadow address space
      struct rlimit cap = {address_space_bytes, address_space_bytes};
      if (::setrlimit(RLIMIT_AS, &cap) != 0) ::_exit(126);
    }
    ::execve(binary.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_whole_file(out_path);
  run.err = read_whole_file(err_path);
  return run;
}

// Everything about the tree under `root` a command could change, one entry per path: type,
// mode, size, modification time and, for files, the contents. A directory's modification time
// also changes when an entry is made and removed again, so a test file made and cleaned up shows.
// A path that cannot be read (a stale mount point) is an entry saying so; the walk goes on.
// Names are relative to `root` lexically: fs::relative would stat each path, and a dead daemon's
// mount answers ENOTCONN (an exception there; a "cannot lstat" entry here).
inline std::map<std::string, std::string> tree_fingerprint(const std::string& root) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> entries;
  auto add = [&](const fs::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      entries[path.lexically_relative(root).string()] =
          std::string("cannot lstat: ") + std::strerror(errno);
      return false;
    }
    std::ostringstream line;
    line << "mode " << std::oct << st.st_mode << std::dec << " size " << st.st_size << " mtime "
         << st.st_mtim.tv_sec << "." << st.st_mtim.tv_nsec;
    if (S_ISREG(st.st_mode))
      line << " contents " << std::hash<std::string>{}(read_whole_file(path));
    if (S_ISLNK(st.st_mode)) line << " -> " << fs::read_symlink(path).string();
    entries[path.lexically_relative(root).string()] = line.str();
    return S_ISDIR(st.st_mode);
  };
  std::function<void(const fs::path&)> walk = [&](const fs::path& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (add(it->path())) walk(it->path());
    }
    if (ec) entries[dir.lexically_relative(root).string()] += " unreadable: " + ec.message();
  };
  if (add(root)) walk(root);
  return entries;
}

// The lines of /proc/self/mountinfo that name a path under `root` (other mounts on a shared
// machine come and go and are none of the sweep's business).
inline std::vector<std::string> mounts_under(const std::string& root) {
  std::ifstream in("/proc/self/mountinfo");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.find(" " + root) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

// "[start][/tmp/x][99]": a case's words as a failure message shows them, empty words visible.
inline std::string shown_words(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& w : words) text += "[" + w + "]";
  return text;
}

// Differences between two fingerprints, one per line, for a failure message.
inline std::string fingerprint_diff(const std::map<std::string, std::string>& before,
                                    const std::map<std::string, std::string>& after) {
  std::string diff;
  for (const auto& [path, line] : before) {
    auto it = after.find(path);
    if (it == after.end())
      diff += "  removed " + path + "\n";
    else if (it->second != line)
      diff += "  changed " + path + ": " + line + " -> " + it->second + "\n";
  }
  for (const auto& [path, line] : after) {
    if (!before.count(path)) diff += "  added " + path + "\n";
  }
  return diff;
}

// The checks every rejected command must pass. `tool` is "dmc" or "rawio".
inline void expect_rejected(const std::string& tool, const std::vector<std::string>& args,
                            int expected_code, const ProgramRun& run) {
  const std::string name = tool + " " + shown_words(args);
  EXPECT_EQ(run.code, expected_code)
      << name << "\n  stderr: " << run.err << "  stdout: " << run.out;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1)
      << name << ": stderr is not one line:\n"
      << run.err;
  EXPECT_TRUE(!run.err.empty() && run.err.back() == '\n')
      << name << ": stderr does not end its line: " << run.err;
  EXPECT_EQ(run.err.rfind(tool + ": ", 0), 0u)
      << name << ": stderr does not start with '" << tool << ": ': " << run.err;
  EXPECT_EQ(run.out, "") << name << ": something on stdout";
}

// A scratch directory holding `world/` (everything a command may be pointed at; fingerprinted)
// and `io/` (the captured output). A mount a wrongly accepted command left under it is detached
// lazily when the object dies, before the directory is removed.
class SweepWorld {
 public:
  explicit SweepWorld(const std::string& prefix) {
    std::string name = "/tmp/" + prefix + ".XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    root_ = std::filesystem::canonical(name).string();
    ::chmod(root_.c_str(), 0755);  // so a command run as another user can reach it
    std::filesystem::create_directories(root_ + "/world");
    std::filesystem::create_directories(root_ + "/io");
  }
  ~SweepWorld() {
    for (const std::string& line : mounts_under(root_)) {
      std::istringstream fields(line);
      std::string id, parent, dev, source, mount_point;
      fields >> id >> parent >> dev >> source >> mount_point;
      std::string command = "umount -l '" + mount_point + "' 2>/dev/null";
      if (std::system(command.c_str()) != 0) ADD_FAILURE() << "cannot detach " << mount_point;
    }
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  SweepWorld(const SweepWorld&) = delete;
  SweepWorld& operator=(const SweepWorld&) = delete;

  std::string path(const std::string& relative) const { return root_ + "/world/" + relative; }
  std::string io_dir() const { return root_ + "/io"; }

  // Remembers the world as it is now; expect_unchanged() compares with it.
  void freeze() {
    files_ = tree_fingerprint(root_ + "/world");
    mounts_ = mounts_under(root_);
  }

  // Fails, naming the case, when a file, directory or mount changed since freeze(); then
  // freezes again so one bad case does not fail every later one.
  void expect_unchanged(const std::string& case_name) {
    auto files = tree_fingerprint(root_ + "/world");
    auto mounts = mounts_under(root_);
    if (files == files_ && mounts == mounts_) return;
    std::string diff = fingerprint_diff(files_, files);
    if (mounts != mounts_) diff += "  mounts under the world changed\n";
    ADD_FAILURE() << case_name << " changed the world:\n" << diff;
    freeze();
  }

 private:
  std::string root_;
  std::map<std::string, std::string> files_;
  std::vector<std::string> mounts_;
};

}  // namespace diskcond::tools
