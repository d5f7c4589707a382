#include "posix/files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "posix/unique_fd.h"
#include "test_support/scratch_dir.h"

namespace diskcond::posix {
namespace {

namespace fs = std::filesystem;

class PosixFiles : public ::testing::Test {
 protected:
  std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  test_support::ScratchDir dir_{"diskcond-posix"};
};

TEST_F(PosixFiles, ReplaceFileIsWholeWithItsModeAndLeavesNoTemporary) {
  const std::string file = dir_.file("state.json");
  ASSERT_EQ(replace_file(file, "old\n", 0644), 0);
  ASSERT_EQ(replace_file(file, std::string(100000, 'x'), 0600), 0);
  EXPECT_EQ(read(file), std::string(100000, 'x'));
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(fs::exists(file + ".tmp"));
  EXPECT_EQ(replace_file(dir_.file("missing/x"), "x", 0644), -ENOENT);
  fs::create_directories(dir_.file("busy"));  // rename over a directory fails: the temporary goes
  EXPECT_LT(replace_file(dir_.file("busy"), "x", 0644), 0);
  EXPECT_FALSE(fs::exists(dir_.file("busy.tmp")));
}

TEST_F(PosixFiles, WriteAllAndTheDescriptorGuard) {
  const std::string file = dir_.file("f");
  int raw = -1;
  {
    UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd.valid());
    EXPECT_EQ(write_all(fd.get(), "hello "), 0);
    UniqueFd moved = std::move(fd);
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(write_all(moved.get(), "world"), 0);
    raw = moved.get();
  }
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1);  // closed with its owner
  EXPECT_EQ(read(file), "hello world");
  EXPECT_EQ(write_all(-1, "x"), -EBADF);
  UniqueFd kept(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  int released = kept.release();
  EXPECT_FALSE(kept.valid());
  EXPECT_EQ(::close(released), 0);
}

TEST_F(PosixFiles, PwriteAllWritesEverythingAtItsOffset) {
  const std::string file = dir_.file("data");
  UniqueFd fd(::open(file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644));
  ASSERT_TRUE(fd.valid());
  const std::string big(3 << 20, 'b');
  EXPECT_EQ(pwrite_all(fd.get(), big.data(), big.size(), 4), static_cast<ssize_t>(big.size()));
  EXPECT_EQ(pwrite_all(fd.get(), "head", 4, 0), 4);
  EXPECT_EQ(read(file), "head" + big);
  EXPECT_EQ(pwrite_all(-1, "x", 1, 0), -EBADF);
  UniqueFd readonly(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(pwrite_all(readonly.get(), "x", 1, 0), -EBADF);
}

TEST(PosixEscapePath, LikeSystemdEscapePath) {
  EXPECT_EQ(escape_path("/srv/data"), "srv-data");
  EXPECT_EQ(escape_path("/srv/my data/"), "srv-my\\x20data");
  EXPECT_EQ(escape_path("/a-b/.c"), "a\\x2db-.c");
  EXPECT_EQ(escape_path("/.hidden"), "\\x2ehidden");
  EXPECT_EQ(escape_path("/mnt/c:d"), "mnt-c:d");
  EXPECT_EQ(escape_path("/"), "-");
  EXPECT_EQ(escape_path("//"), "-");
}

TEST(PosixFnv1a, KnownValues) {
  EXPECT_EQ(fnv1a_64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a_64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_NE(fnv1a_64("/a/b"), fnv1a_64("/a-b"));
}

}  // namespace
}  // namespace diskcond::posix
