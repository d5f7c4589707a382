#include "dmc/mount/conditionable.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include <filesystem>
#include <string>

#include "test_support/scratch_dir.h"

namespace diskcond::mount {
namespace {

// The f_type of `path`'s file system, or 0 if it cannot be read (the path is not there).
int64_t magic_of(const std::string& path) {
  struct statfs fs {};
  return statfs(path.c_str(), &fs) == 0 ? static_cast<int64_t>(fs.f_type) : 0;
}

TEST(Conditionable, PseudoFilesystemsAreKnownByTheirMagic) {
  EXPECT_EQ(pseudo_filesystem_name(PROC_SUPER_MAGIC), "proc");
  EXPECT_EQ(pseudo_filesystem_name(SYSFS_MAGIC), "sysfs");
  EXPECT_EQ(pseudo_filesystem_name(CGROUP2_SUPER_MAGIC), "cgroup2");
  EXPECT_EQ(pseudo_filesystem_name(0x19800202), "mqueue");
  EXPECT_EQ(pseudo_filesystem_name(EXT4_SUPER_MAGIC), "");
  EXPECT_EQ(pseudo_filesystem_name(TMPFS_MAGIC), "");  // tmpfs is a fine place for a test
}

// Issue 13, item 1: `dmc start / 0` conditioned nothing and said ON.
TEST(Conditionable, TheRootIsRefused) {
  auto s = check_conditionable("/", {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(
      s.error(),
      "refusing to condition / (the whole system, dmc's own files included); name a directory "
      "below it");
}

// Issue 13, item 2: the pseudo file systems this machine has mounted.
TEST(Conditionable, DirectoriesOnPseudoFilesystemsAreRefused) {
  int checked = 0;
  // (/sys/fs/cgroup itself may be a tmpfs holding the cgroup mounts: a file system like any other.)
  for (const char* dir :
       {"/proc", "/proc/self", "/sys", "/sys/kernel", "/dev", "/dev/pts", "/sys/fs/cgroup/cpu",
        "/sys/fs/cgroup/unified", "/sys/kernel/debug", "/sys/kernel/tracing", "/dev/mqueue",
        "/proc/sys/fs/binfmt_misc", "/sys/fs/bpf"}) {
    if (magic_of(dir) == 0) continue;
    auto s = check_conditionable(std::filesystem::canonical(dir), {});
    ASSERT_FALSE(s.ok()) << dir;
    EXPECT_NE(s.error().find(", a pseudo file system with no disk behind it"), std::string::npos)
        << s.error();
    ++checked;
  }
  EXPECT_GE(checked, 3);  // at least /proc, /sys and /dev
  auto dev = check_conditionable("/dev", {});
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(
      dev.error(),
      "refusing to condition /dev: it is on devtmpfs, a pseudo file system with no disk behind it");
  auto proc = check_conditionable("/proc", {});
  ASSERT_FALSE(proc.ok());
  EXPECT_EQ(
      proc.error(),
      "refusing to condition /proc: it is on proc, a pseudo file system with no disk behind it");
}

TEST(Conditionable, OrdinaryDirectoriesPass) {
  test_support::ScratchDir temp{"conditionable_test"};
  EXPECT_TRUE(check_conditionable(temp.path(), {}).ok());
  if (magic_of("/dev/shm") == TMPFS_MAGIC) {
    EXPECT_TRUE(check_conditionable("/dev/shm", {}).ok());
  }
}

// Issue 13, item 2 (and 7): dmc's own state and run directories, and their parents.
TEST(Conditionable, DmcsOwnDirectoriesAndTheirParentsAreRefused) {
  test_support::ScratchDir temp{"conditionable_test"};
  const std::string root = temp.path();
  std::filesystem::create_directories(root + "/var/lib/diskcond/mounts/below");
  std::filesystem::create_directories(root + "/run/diskcond");
  std::filesystem::create_directories(root + "/var/other");
  const std::vector<std::string> own = {root + "/var/lib/diskcond/mounts", root + "/run/diskcond"};
  for (const std::string dir : {"/var/lib/diskcond/mounts", "/var/lib/diskcond", "/var/lib", "/var",
                                "/run/diskcond", "/run", ""}) {
    auto s = check_conditionable(root + dir, own);
    ASSERT_FALSE(s.ok()) << dir;
    EXPECT_EQ(
        s.error().rfind("refusing to condition " + root + dir + ": it holds dmc's own files (", 0),
        0u)
        << s.error();
  }
  EXPECT_EQ(check_conditionable(root + "/var", own).error(),
            "refusing to condition " + root + "/var: it holds dmc's own files (" + root +
                "/var/lib/diskcond/mounts)");
  EXPECT_TRUE(check_conditionable(root + "/var/other", own).ok());
  EXPECT_TRUE(check_conditionable(root + "/var/lib/diskcond/mounts/below", own).ok());
}

}  // namespace
}  // namespace diskcond::mount
