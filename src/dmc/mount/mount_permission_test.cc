// Integration: the root daemon serves every user with that user's own credentials, so what the
// backing filesystem refuses a user, the mount refuses too, and what a user creates is theirs.
#include <dirent.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

constexpr gid_t kOtherGroup = 12345;

// Exit code of a child: 0 = the operation failed with `expected` errno, 1 = it succeeded,
// 2 = it failed otherwise.
int expect_errno(int result, int expected) {
  if (result >= 0) return 1;
  return errno == expected ? 0 : 2;
}

class MountPermission : public MountTest {
 protected:
  void SetUp() override {
    MountTest::SetUp();
    if (IsSkipped()) return;
    int fd = open(path("secret").c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, "root only", 9), 9);
    close(fd);
    ASSERT_EQ(mkdir(path("pub").c_str(), 01777), 0);
    chmod(path("pub").c_str(), 01777);
    fd = open(path("group").c_str(), O_WRONLY | O_CREAT, 0640);
    ASSERT_GE(fd, 0);
    close(fd);
    ASSERT_EQ(chown(path("group").c_str(), 0, kOtherGroup), 0);
    start(ssd_profile(0));
  }
};

TEST_F(MountPermission, UserCannotReadRootsPrivateFile) {
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] { return expect_errno(open(path("secret").c_str(), O_RDONLY), EACCES); }),
            0);
  // ... nor change its mode or owner, or write into root's directory.
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] { return expect_errno(chmod(path("secret").c_str(), 0644), EPERM); }),
            0);
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] {
                     return expect_errno(open(path("mine").c_str(), O_WRONLY | O_CREAT, 0644),
                                         EACCES);
                   }),
            0);
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] { return expect_errno(unlink(path("secret").c_str()), EACCES); }),
            0);
  // Root itself can.
  EXPECT_GE(open(path("secret").c_str(), O_RDONLY), 0);
}

TEST_F(MountPermission, FilesAUserCreatesAreOwnedByThatUser) {
  ASSERT_EQ(run_as(kNobody, kNogroup,
                   [&] {
                     int fd = open(path("pub/mine").c_str(), O_WRONLY | O_CREAT, 0644);
                     if (fd < 0 || write(fd, "x", 1) != 1) return 1;
                     close(fd);
                     if (mkdir(path("pub/dir").c_str(), 0755) != 0) return 2;
                     if (symlink("mine", path("pub/link").c_str()) != 0) return 3;
                     // A user cannot give a file away, nor set attributes only root may set.
                     if (expect_errno(chown(path("pub/mine").c_str(), 0, 0), EPERM) != 0) return 4;
                     if (expect_errno(setxattr(path("pub/mine").c_str(), "trusted.x", "1", 1, 0),
                                      EPERM) != 0) {
                       return 5;
                     }
                     return 0;
                   }),
            0);
  for (const char* name : {"pub/mine", "pub/dir", "pub/link"}) {
    struct stat st;
    ASSERT_EQ(lstat(path(name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_uid, kNobody) << name;
    EXPECT_EQ(st.st_gid, kNogroup) << name;
  }
  // The sticky directory protects root's files from the user.
  int fd = open(path("pub/roots").c_str(), O_WRONLY | O_CREAT, 0666);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] { return expect_errno(unlink(path("pub/roots").c_str()), EPERM); }),
            0);
}

TEST_F(MountPermission, WriteByAnotherUserClearsSetuidLikeTheBackingFilesystem) {
  int fd = open(path("pub/setuid").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_EQ(chmod(path("pub/setuid").c_str(), 04777), 0);
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] {
                     int f = open(path("pub/setuid").c_str(), O_WRONLY | O_APPEND);
                     return f >= 0 && write(f, "x", 1) == 1 ? 0 : 1;
                   }),
            0);
  struct stat st;
  ASSERT_EQ(stat(path("pub/setuid").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0777u);
  EXPECT_EQ(st.st_size, 1);
}

// Credentials are per worker thread: users working at the same time each get their own.
TEST_F(MountPermission, ConcurrentUsersKeepTheirOwnCredentials) {
  constexpr uid_t kOtherUser = 4242;
  constexpr int kFiles = 40;
  std::vector<pid_t> children;
  for (uid_t uid : {kNobody, kOtherUser, kNobody, kOtherUser}) {
    pid_t pid = fork();
    if (pid == 0) {
      _exit(run_as(uid, uid, [&] {
        for (int i = 0; i < kFiles; ++i) {
          const std::string name = path("pub/u" + std::to_string(uid) + "-" +
                                        std::to_string(getpid()) + "-" + std::to_string(i));
          int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
          if (fd < 0) return 1;
          close(fd);
        }
        return 0;
      }));
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  int checked = 0;
  for (auto& e : std::filesystem::directory_iterator(path("pub"))) {
    const std::string name = e.path().filename();
    if (name[0] != 'u') continue;
    struct stat st;
    ASSERT_EQ(stat(e.path().c_str(), &st), 0);
    const uid_t want = static_cast<uid_t>(std::stoul(name.substr(1)));
    EXPECT_EQ(st.st_uid, want) << name;
    EXPECT_EQ(st.st_gid, want) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 4 * kFiles);
}

// Issue 13, item 10: a directory its owner may read but not search (0600) opens and lists as on
// the backing filesystem, while what needs search permission stays refused.
TEST_F(MountPermission, OwnerOpensAndListsADirectoryItMayReadButNotSearch) {
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] {
                     const std::string d = path("pub/d");
                     if (mkdir(d.c_str(), 0700) != 0) return 1;
                     int fd = open((d + "/x").c_str(), O_WRONLY | O_CREAT, 0644);
                     if (fd < 0) return 2;
                     close(fd);
                     if (chmod(d.c_str(), 0600) != 0) return 3;
                     fd = open(d.c_str(), O_RDONLY);
                     if (fd < 0) return 10 + errno % 100;
                     close(fd);
                     DIR* dir = opendir(d.c_str());
                     if (dir == nullptr) return 4;
                     bool saw_x = false;
                     while (const dirent* e = readdir(dir))
                       saw_x = saw_x || std::string(e->d_name) == "x";
                     closedir(dir);
                     if (!saw_x) return 5;
                     struct stat st;
                     return expect_errno(lstat((d + "/x").c_str(), &st), EACCES) == 0 ? 0 : 6;
                   }),
            0);
  // Another user may do none of it.
  EXPECT_EQ(run_as(4242, 4242,
                   [&] { return expect_errno(open(path("pub/d").c_str(), O_RDONLY), EACCES); }),
            0);
}

TEST_F(MountPermission, SupplementaryGroupsCount) {
  auto read_group_file = [&] { return open(path("group").c_str(), O_RDONLY) >= 0 ? 0 : errno; };
  EXPECT_EQ(run_as(kNobody, kNogroup, read_group_file, {kOtherGroup}), 0);
  EXPECT_EQ(run_as(kNobody, kNogroup, read_group_file), EACCES);
  EXPECT_EQ(run_as(kNobody, kOtherGroup, read_group_file), 0);
}

}  // namespace
}  // namespace diskcond::mount::testing
