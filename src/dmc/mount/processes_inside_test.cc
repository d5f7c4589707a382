#include "dmc/mount/processes_inside.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "test_support/scratch_dir.h"

namespace diskcond::mount {
namespace {

using test_support::ScratchDir;

// A child process that does `setup` (only async-signal-safe calls: it is forked from a threaded
// test binary), says it is ready and then waits until killed.
class Child {
 public:
  template <class Setup>
  explicit Child(Setup setup) {
    int ready[2];
    if (::pipe(ready) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      if (!setup()) ::_exit(1);
      char byte = 1;
      if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char byte = 0;
    ready_ = pid_ > 0 && ::read(ready[0], &byte, 1) == 1;
    ::close(ready[0]);
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  bool ready() const { return ready_; }

 private:
  pid_t pid_ = -1;
  bool ready_ = false;
};

const ProcessInside* find_pid(const std::vector<ProcessInside>& found, pid_t pid) {
  auto it = std::find_if(found.begin(), found.end(),
                         [pid](const ProcessInside& p) { return p.pid == pid; });
  return it == found.end() ? nullptr : &*it;
}

TEST(ProcessesInside, PathsInsideTheDirectory) {
  EXPECT_TRUE(path_is_inside("/tmp/d", "/tmp/d"));
  EXPECT_TRUE(path_is_inside("/tmp/d/a/b", "/tmp/d"));
  EXPECT_TRUE(path_is_inside("/tmp/d/gone (deleted)", "/tmp/d"));
  EXPECT_FALSE(path_is_inside("/tmp/d2", "/tmp/d"));
  EXPECT_FALSE(path_is_inside("/tmp", "/tmp/d"));
  EXPECT_FALSE(path_is_inside("socket:[1234]", "/tmp/d"));
}

// Issue 13, item 3: a process that changed into the directory before `dmc start` keeps the
// directory underneath; one elsewhere is not listed.
TEST(ProcessesInside, AWorkingDirectoryInsideIsFoundAndOneOutsideIsNot) {
  ScratchDir dir("dmc-inside");
  const std::string sub = dir.path() + "/sub";
  ASSERT_EQ(::mkdir(sub.c_str(), 0755), 0);
  const std::string sibling = dir.path() + "2";  // same prefix, another directory
  ASSERT_EQ(::mkdir(sibling.c_str(), 0755), 0);
  Child inside([&] { return ::chdir(sub.c_str()) == 0; });
  Child outside([&] { return ::chdir(sibling.c_str()) == 0; });
  ASSERT_TRUE(inside.ready() && outside.ready());

  auto found = find_processes_inside(dir.path());
  const ProcessInside* p = find_pid(found, inside.pid());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->uses, std::vector<std::string>{"cwd"});
  EXPECT_FALSE(p->command.empty());
  EXPECT_EQ(find_pid(found, outside.pid()), nullptr);
  EXPECT_EQ(find_pid(found, ::getpid()), nullptr);
  ::rmdir(sibling.c_str());
}

TEST(ProcessesInside, OpenAndMappedFilesAreFound) {
  ScratchDir dir("dmc-inside");
  const std::string file = dir.path() + "/data";
  std::ofstream(file) << std::string(8192, 'x');
  int fd = -1;
  Child open_file([&] {
    fd = ::open(file.c_str(), O_RDONLY);  // in the child: the parent's `fd` stays -1
    return fd >= 0 && ::chdir("/") == 0;
  });
  Child mapped([&] {
    int f = ::open(file.c_str(), O_RDONLY);
    if (f < 0 || ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, f, 0) == MAP_FAILED) return false;
    return ::close(f) == 0 && ::chdir("/") == 0;
  });
  ASSERT_TRUE(open_file.ready() && mapped.ready());

  auto found = find_processes_inside(dir.path());
  const ProcessInside* o = find_pid(found, open_file.pid());
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->uses.size(), 1u);
  EXPECT_EQ(o->uses[0].rfind("fd ", 0), 0u) << o->uses[0];
  const ProcessInside* m = find_pid(found, mapped.pid());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->uses, std::vector<std::string>{"map"});
}

TEST(ProcessesInside, IgnoredPidsAndFilesOnTheExceptedDeviceAreLeftOut) {
  ScratchDir dir("dmc-inside");
  Child inside([&] { return ::chdir(dir.path().c_str()) == 0; });
  ASSERT_TRUE(inside.ready());
  ASSERT_NE(find_pid(find_processes_inside(dir.path()), inside.pid()), nullptr);

  EXPECT_EQ(find_pid(find_processes_inside(dir.path(), {.ignore = {inside.pid()}}), inside.pid()),
            nullptr);
  // Once conditioned, a cwd on the mount's own device sees the mount: not listed.
  struct stat st {};
  ASSERT_EQ(::stat(dir.path().c_str(), &st), 0);
  EXPECT_EQ(find_pid(find_processes_inside(dir.path(), {.except_device = st.st_dev}), inside.pid()),
            nullptr);
  EXPECT_NE(
      find_pid(find_processes_inside(dir.path(), {.except_device = st.st_dev + 1}), inside.pid()),
      nullptr);
}

}  // namespace
}  // namespace diskcond::mount
