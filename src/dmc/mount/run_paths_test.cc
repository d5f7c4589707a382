#include "dmc/mount/run_paths.h"

#include <gtest/gtest.h>

#include "dmc/mount/mount_table.h"

namespace diskcond::mount {
namespace {

TEST(MountRunPaths, EscapesLikeSystemd) {
  EXPECT_EQ(escape_mount_point("/tmp/data"), "tmp-data");
  EXPECT_EQ(escape_mount_point("/tmp/my data"), "tmp-my\\x20data");
  EXPECT_EQ(escape_mount_point("/a-b/.c"), "a\\x2db-.c");
  EXPECT_EQ(escape_mount_point("/"), "-");
  EXPECT_NE(escape_mount_point("/a/b"), escape_mount_point("/a-b"));
}

TEST(MountRunPaths, LongPathsAreHashedToFitASocketAddress) {
  const std::string long_path = "/tmp/" + std::string(200, 'x');
  RunPaths p = run_paths_for(long_path);
  EXPECT_LT(p.socket.size(), 108u);
  EXPECT_NE(p.socket.find("/h-"), std::string::npos);
  EXPECT_NE(run_paths_for(long_path + "y").socket, p.socket);
}

TEST(MountTable, UnescapesMountinfo) {
  EXPECT_EQ(unescape_mountinfo("/tmp/my\\040data"), "/tmp/my data");
  EXPECT_EQ(unescape_mountinfo("/plain"), "/plain");
  EXPECT_EQ(unescape_mountinfo("/end\\04"), "/end\\04");
}

TEST(MountTable, CanonicalPaths) {
  auto p = canonical_directory_path("/tmp/../tmp/.");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, "/tmp");
  EXPECT_FALSE(canonical_directory_path("/nonexistent/diskcond/x").ok());
  EXPECT_FALSE(is_conditioned_mount("/tmp"));
}

}  // namespace
}  // namespace diskcond::mount
