#include "test_support/scratch_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace diskcond::test_support {
namespace {

namespace fs = std::filesystem;

TEST(ScratchDir, AFreshDirectoryOfItsOwnUnderTheTestTempDir) {
  ScratchDir a("scratch-dir-test");
  ScratchDir b("scratch-dir-test");
  ASSERT_FALSE(a.path().empty());
  EXPECT_NE(a.path(), b.path());
  EXPECT_EQ(a.path(), fs::canonical(a.path()).string());
  EXPECT_EQ(fs::path(a.path()).parent_path(), fs::canonical(::testing::TempDir()));
  EXPECT_EQ(fs::path(a.path()).filename().string().rfind("scratch-dir-test.", 0), 0u);
  EXPECT_TRUE(fs::is_directory(a.path()));
  EXPECT_TRUE(fs::is_empty(a.path()));
  struct stat st {};
  ASSERT_EQ(::stat(a.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(a.file("x.toml"), a.path() + "/x.toml");
  EXPECT_FALSE(fs::exists(a.file("x.toml")));  // named, not made
}

TEST(ScratchDir, GoesAwayWithEverythingInIt) {
  std::string path;
  {
    ScratchDir dir;
    path = dir.path();
    fs::create_directories(dir.file("a/b"));
    std::ofstream(dir.file("a/b/f")) << "data";
    std::ofstream(dir.file("g")) << "data";
    fs::create_symlink(dir.file("g"), dir.file("link"));
    ASSERT_TRUE(fs::exists(dir.file("a/b/f")));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(ScratchDir, RemovesNothingOutsideIt) {
  ScratchDir outside;
  std::ofstream(outside.file("kept")) << "data";
  {
    ScratchDir dir;
    fs::create_symlink(outside.path(), dir.file("to-outside"));
  }
  EXPECT_TRUE(fs::exists(outside.file("kept")));
}

}  // namespace
}  // namespace diskcond::test_support
