#include "dmc/mount/machine_writeback.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support/scratch_dir.h"

namespace diskcond::mount {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

void put(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(MachineWriteback, ReadsTheVmSettingsAndDirtyableMemory) {
  test_support::ScratchDir scratch("machine_writeback");
  const std::filesystem::path root = scratch.path();
  put(root / "sys/vm/dirty_background_ratio", "5\n");
  put(root / "sys/vm/dirty_background_bytes", "0\n");
  put(root / "sys/vm/dirty_ratio", "15\n");
  put(root / "sys/vm/dirty_bytes", "33554432\n");
  put(root / "sys/vm/dirty_expire_centisecs", "1500\n");
  put(root / "sys/vm/dirty_writeback_centisecs", "250\n");
  put(root / "meminfo",
      "MemTotal:  4000 kB\nMemFree:  1000 kB\nActive(file):  200 kB\nInactive(file):  24 kB\n");
  const WritebackParams p = machine_writeback_params(100 * kGiB, root.string());
  EXPECT_EQ(p.dirty_background_ratio, 5u);
  EXPECT_EQ(p.dirty_ratio, 15u);
  EXPECT_EQ(p.dirty_bytes, 33554432u);
  EXPECT_EQ(p.expire_ns, 15'000'000'000);
  EXPECT_EQ(p.writeback_interval_ns, 2'500'000'000);
  EXPECT_EQ(p.dirtyable_memory_bytes, 1224u * 1024);
  EXPECT_EQ(p.journal_address, 50 * kGiB);
  EXPECT_EQ(p.journal_bytes, 128u << 20);
}

TEST(MachineWriteback, MissingFilesKeepLinuxDefaults) {
  const WritebackParams p = machine_writeback_params(64u << 20, "/nonexistent-proc");
  EXPECT_EQ(p.dirty_background_ratio, 10u);
  EXPECT_EQ(p.expire_ns, 30'000'000'000);
  EXPECT_EQ(p.dirtyable_memory_bytes, WritebackParams{}.dirtyable_memory_bytes);
  EXPECT_EQ(p.journal_bytes, 2u << 20);  // a 32nd of a small device
}

}  // namespace
}  // namespace diskcond::mount
