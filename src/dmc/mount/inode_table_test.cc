#include "dmc/mount/inode_table.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "test_support/scratch_dir.h"

namespace diskcond::mount {
namespace {

class MountInodeTable : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < kFiles; ++i) {
      FILE* f = fopen(dir_.file("f" + std::to_string(i)).c_str(), "w");
      ASSERT_NE(f, nullptr);
      fclose(f);
    }
    root_fd_ = open(dir_.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root_fd_, 0);
  }

  // What a FUSE lookup does.
  Inode& lookup(InodeTable& table, int i, ino_t* ino) {
    int fd = openat(table.root().fd, ("f" + std::to_string(i)).c_str(), O_PATH | O_NOFOLLOW);
    EXPECT_GE(fd, 0);
    struct stat st;
    EXPECT_EQ(fstatat(fd, "", &st, AT_EMPTY_PATH), 0);
    *ino = st.st_ino;
    return table.add_lookup(fd, st);
  }

  // Descriptors this process has open (the listing's own included, the same in every call).
  static int open_descriptor_count() {
    int n = 0;
    DIR* d = opendir("/proc/self/fd");
    while (d != nullptr && readdir(d) != nullptr) ++n;
    if (d != nullptr) closedir(d);
    return n;
  }

  static constexpr int kFiles = 100;
  test_support::ScratchDir dir_{"diskcond-inodes"};
  int root_fd_ = -1;
};

TEST_F(MountInodeTable, LookupsShareOneEntryPerInodeAndForgetRemovesIt) {
  AddressSpace space(1ull << 30);
  InodeTable table(root_fd_, space);
  ino_t ino;
  Inode& a = lookup(table, 1, &ino);
  Inode& b = lookup(table, 1, &ino);
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.nlookup, 2u);
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(&table.get(table.id_of(a)), &a);
  table.forget(table.id_of(a), 1);
  EXPECT_EQ(table.size(), 1u);
  table.forget(table.id_of(a), 1);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.open_descriptors(), 0u);
}

TEST_F(MountInodeTable, DescriptorsBeyondTheBudgetAreClosedAndReopened) {
  AddressSpace space(1ull << 30);
  constexpr size_t kBudget = 8;
  InodeTable table(root_fd_, space, kBudget);
  std::vector<std::pair<Inode*, ino_t>> inodes;
  for (int i = 0; i < kFiles; ++i) {
    ino_t ino;
    Inode* inode = &lookup(table, i, &ino);
    inodes.emplace_back(inode, ino);
    EXPECT_LE(table.open_descriptors(), kBudget);
  }
  EXPECT_EQ(table.size(), static_cast<size_t>(kFiles));
  // Every inode is still reachable, by its own descriptor, even when all are pinned at once
  // (pins may exceed the budget; they are never closed under a handler).
  std::vector<InodeFd> pinned;
  for (auto& [inode, ino] : inodes) {
    pinned.push_back(table.pin(*inode));
    ASSERT_TRUE(pinned.back().ok()) << pinned.back().error();
    struct stat st;
    ASSERT_EQ(fstatat(pinned.back().get(), "", &st, AT_EMPTY_PATH), 0);
    EXPECT_EQ(st.st_ino, ino);
  }
  EXPECT_EQ(table.open_descriptors(), static_cast<size_t>(kFiles));
  pinned.clear();
  ino_t ino;
  lookup(table, 0, &ino);  // the next lookup trims back to the budget
  EXPECT_LE(table.open_descriptors(), kBudget);
}

// A file handle is taken only when a descriptor is first closed for the budget: by then the
// entry's name may be another (a handle names the inode, not a path), and it still reopens.
TEST_F(MountInodeTable, AnEntryRenamedBeforeItsDescriptorIsClosedIsReopened) {
  AddressSpace space(1ull << 30);
  constexpr size_t kBudget = 8;
  InodeTable table(root_fd_, space, kBudget);
  ino_t moved_ino;
  Inode& moved = lookup(table, 0, &moved_ino);
  ASSERT_EQ(rename(dir_.file("f0").c_str(), dir_.file("moved").c_str()), 0);
  ino_t ino;
  for (int i = 1; i < kFiles; ++i) lookup(table, i, &ino);  // f0's descriptor is closed
  EXPECT_LE(table.open_descriptors(), kBudget);
  EXPECT_EQ(moved.fd, -1);
  InodeFd pinned = table.pin(moved);
  ASSERT_TRUE(pinned.ok()) << pinned.error();
  struct stat st;
  ASSERT_EQ(fstatat(pinned.get(), "", &st, AT_EMPTY_PATH), 0);
  EXPECT_EQ(st.st_ino, moved_ino);
}

// The descriptors of forgotten entries are closed in the background; until then they count
// against the budget, so the table never holds more than it.
TEST_F(MountInodeTable, DescriptorsWaitingToBeClosedCountAgainstTheBudget) {
  AddressSpace space(1ull << 30);
  constexpr size_t kBudget = 8;
  const int before = open_descriptor_count();  // with the root's descriptor
  InodeTable table(root_fd_, space, kBudget);
  const int limit = before + 1 + static_cast<int>(kBudget);  // + the table's mount descriptor
  ino_t ino;
  for (int i = 0; i < kFiles / 2; ++i) {  // forgotten at once: their closes wait
    Inode& inode = lookup(table, i, &ino);
    table.forget(table.id_of(inode), 1);
    EXPECT_LE(open_descriptor_count(), limit) << i;
  }
  for (int i = kFiles / 2; i < kFiles; ++i) {  // kept: the waiting ones leave them less room
    lookup(table, i, &ino);
    EXPECT_LE(open_descriptor_count(), limit) << i;
  }
  EXPECT_EQ(table.size(), static_cast<size_t>(kFiles / 2));
  table.finish_closes();
  EXPECT_LE(open_descriptor_count(), before + 1 + static_cast<int>(table.open_descriptors()));
}

}  // namespace
}  // namespace diskcond::mount
