#include "dmc/mount/mount_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace diskcond::mount {
namespace {

// A line in /proc/self/mountinfo's format.
std::string line(int id, int parent, const std::string& mount_point, const std::string& type) {
  return std::to_string(id) + " " + std::to_string(parent) + " 0:1 / " + mount_point +
         " rw,relatime shared:1 - " + type + " src rw\n";
}

TEST(MountTable, ParsesIdsMountPointsAndTypesUnescaped) {
  auto entries = parse_mountinfo(line(1, 0, "/", "ext4") +
                                 line(7, 1, "/srv/my\\040data", "fuse.diskcond") + "garbage\n");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].id, 7);
  EXPECT_EQ(entries[1].parent, 1);
  EXPECT_EQ(entries[1].mount_point, "/srv/my data");
  EXPECT_EQ(entries[1].type, "fuse.diskcond");
}

// Issue 17, item 2: a mount an ordinary user made through fusermount3 carries their user_id,
// which says whose run directory holds its socket and who may change it.
TEST(MountTable, AFuseMountsOwnerIsItsUserId) {
  const std::string user =
      "9 1 0:50 / /home/u/d rw,nosuid,nodev,relatime shared:5 - fuse.diskcond diskcond "
      "rw,user_id=1000,group_id=1000,default_permissions\n";
  const std::string root =
      "10 1 0:51 / /srv/d rw,relatime shared:6 - fuse.diskcond diskcond "
      "rw,user_id=0,group_id=0,default_permissions,allow_other\n";
  const std::string odd = "11 1 0:52 / /x rw - fuse.diskcond diskcond rw,user_id=12x\n";
  // dmc run by a user: mounted in their namespace with allow_other, open to all in it.
  const std::string run =
      "13 1 0:53 / /r rw - fuse.diskcond diskcond rw,user_id=1000,group_id=1000,allow_other\n";
  auto entries = parse_mountinfo(user + root + odd + line(12, 1, "/y", "ext4") + run);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0].owner, 1000u);
  EXPECT_EQ(entries[1].owner, 0u);
  EXPECT_EQ(entries[2].owner, 0u);  // malformed: nobody's but root's
  EXPECT_EQ(entries[3].owner, 0u);
  EXPECT_EQ(entries[4].owner, 0u);
}

std::string holder_of(const std::vector<MountEntry>& entries, const std::string& path) {
  const MountEntry* e = holding_mount(entries, path);
  return e ? std::to_string(e->id) + " " + e->mount_point : "none";
}

// Issue 13, item 4: a path inside a conditioned directory is held by its mount.
TEST(MountTable, TheHoldingMountIsTheDeepestOneOnThePathOrAnAncestor) {
  auto entries =
      parse_mountinfo(line(1, 0, "/", "ext4") + line(2, 1, "/srv/d", "fuse.diskcond") +
                      line(3, 2, "/srv/d/inner", "tmpfs") + line(4, 1, "/srv/dd", "xfs"));
  EXPECT_EQ(holder_of(entries, "/srv/d"), "2 /srv/d");
  EXPECT_EQ(holder_of(entries, "/srv/d/sub/deeper"), "2 /srv/d");
  EXPECT_EQ(holder_of(entries, "/srv/d/inner/x"),
            "3 /srv/d/inner");                              // a mount inside the conditioned one
  EXPECT_EQ(holder_of(entries, "/srv/dd/x"), "4 /srv/dd");  // a sibling whose name starts alike
  EXPECT_EQ(holder_of(entries, "/srv"), "1 /");
  EXPECT_EQ(holding_mount({}, "/x"), nullptr);
}

// As in a container: the root comes after the mounts on it, and mounts are stacked.
TEST(MountTable, TheOrderOfTheLinesSaysNothing) {
  auto entries =
      parse_mountinfo(line(24, 27, "/dev", "devtmpfs") + line(25, 24, "/dev/shm", "tmpfs") +
                      line(27, 1, "/", "ext4") + line(30, 25, "/dev/shm", "tmpfs2"));
  EXPECT_EQ(holder_of(entries, "/dev"), "24 /dev");
  EXPECT_EQ(holder_of(entries, "/dev/null"), "24 /dev");
  EXPECT_EQ(holder_of(entries, "/dev/shm/x"), "30 /dev/shm");  // on top of 25
  EXPECT_EQ(holder_of(entries, "/devx"), "27 /");
}

TEST(MountTable, HiddenMountsHoldNothing) {
  // A mount on an ancestor (a sibling mounted later) hides the deeper one.
  auto entries = parse_mountinfo(line(1, 0, "/", "ext4") + line(2, 1, "/srv/d", "fuse.diskcond") +
                                 line(3, 1, "/srv", "tmpfs"));
  EXPECT_EQ(holder_of(entries, "/srv/d/x"), "3 /srv");
  // A mount on top of the parent hides what was mounted inside the parent before.
  entries = parse_mountinfo(line(1, 0, "/", "ext4") + line(2, 1, "/mnt", "xfs") +
                            line(3, 2, "/mnt/d", "fuse.diskcond") + line(4, 2, "/mnt", "tmpfs"));
  EXPECT_EQ(holder_of(entries, "/mnt/d"), "4 /mnt");
  EXPECT_EQ(holder_of(entries, "/mnt/other"), "4 /mnt");
}

TEST(MountTable, CanonicalPathsOfExistingDirectories) {
  EXPECT_EQ(*canonical_directory_path("/tmp/../tmp/"), "/tmp");
  EXPECT_FALSE(canonical_directory_path("").ok());
  auto missing = canonical_directory_path("/no/such/dir");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "/no/such/dir: No such file or directory");
}

}  // namespace
}  // namespace diskcond::mount
