#include "dmc/cli/mount_path.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support/scratch_dir.h"

namespace diskcond::dmc {
namespace {

class DmcMountPath : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(root_ + "/data/sub");
    std::filesystem::create_directory_symlink(root_ + "/data", root_ + "/link");
    std::ofstream(root_ + "/file") << "x";
  }
  test_support::ScratchDir temp_{"dmc_path_test"};
  std::string root_ = temp_.path();
};

TEST_F(DmcMountPath, CanonicalizesDirectories) {
  EXPECT_EQ(*resolve_mount_dir(root_ + "/data"), root_ + "/data");
  EXPECT_EQ(*resolve_mount_dir(root_ + "/data/"), root_ + "/data");
  EXPECT_EQ(*resolve_mount_dir(root_ + "/data/sub/.."), root_ + "/data");
  EXPECT_EQ(*resolve_mount_dir(root_ + "/link"), root_ + "/data");
  std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(root_);
  auto relative = resolve_mount_dir("data");
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(relative.ok()) << relative.error();
  EXPECT_EQ(*relative, root_ + "/data");
}

TEST_F(DmcMountPath, RejectsWhatIsNotADirectoryNamingIt) {
  auto missing = resolve_mount_dir(root_ + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "no such directory '" + root_ + "/nope'");
  auto file = resolve_mount_dir(root_ + "/file");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error(), "'" + root_ + "/file' is not a directory");
  auto under_file = resolve_mount_dir(root_ + "/file/x");
  ASSERT_FALSE(under_file.ok());
  EXPECT_EQ(under_file.error(), "'" + root_ + "/file/x' is not a directory");
  auto empty = resolve_mount_dir("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error(), "the mount path is empty");
}

// Issue 13, item 6: what a deleted directory was called, to find its stored record.
TEST_F(DmcMountPath, DeletedDirectoriesResolveThroughTheirNearestExistingAncestor) {
  EXPECT_TRUE(path_is_missing(root_ + "/gone"));
  EXPECT_TRUE(path_is_missing(root_ + "/gone/deeper"));
  EXPECT_FALSE(path_is_missing(root_ + "/data"));
  EXPECT_FALSE(path_is_missing(root_ + "/file/x"));  // ENOTDIR: not a deleted directory
  EXPECT_EQ(*resolve_missing_dir(root_ + "/gone"), root_ + "/gone");
  EXPECT_EQ(*resolve_missing_dir(root_ + "/gone/"), root_ + "/gone");
  EXPECT_EQ(*resolve_missing_dir(root_ + "/link/gone/deeper"), root_ + "/data/gone/deeper");
  EXPECT_EQ(*resolve_missing_dir(root_ + "/data/x/../gone"), root_ + "/data/gone");
  EXPECT_FALSE(resolve_missing_dir("").ok());
}

}  // namespace
}  // namespace diskcond::dmc
