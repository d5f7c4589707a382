#include "rawio/honesty.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>

#include "rawio/interface_limit.h"
#include "rawio/test_util.h"

namespace diskcond::rawio {
namespace {

TargetReport report_with(TestKind kind, double bytes_per_sec, uint32_t transfer) {
  TargetReport r{"ssd", "/mnt/x", "directory", "/mnt/x/rawio.tmp", 1 << 30, 512, {}, {}};
  RunResult t;
  t.spec.kind = kind;
  t.spec.transfer_bytes = transfer;
  t.elapsed_ns = 1'000'000'000;
  t.bytes = static_cast<uint64_t>(bytes_per_sec);
  t.transfers = t.bytes / transfer;
  r.tests.push_back(t);
  return r;
}

TEST(RawioHonesty, PageCacheWhenODirectWasRefusedOrTurnedOff) {
  TargetFacts refused{false, false, true, false, {}};
  auto c = honesty_cautions(refused, report_with(TestKind::kRandomRead, 1e6, 4096));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].key, "page_cache");
  EXPECT_EQ(c[0].text,
            "ssd: /mnt/x refused O_DIRECT, so the page cache served these tests: the figures are "
            "memory's, not the storage's");
  TargetFacts off{false, false, false, false, {}};
  EXPECT_EQ(honesty_cautions(off, report_with(TestKind::kRandomRead, 1e6, 4096))[0].key,
            "buffered");
  TargetFacts device{true, false, false, false, {}};  // a device opened buffered: no file cache
  EXPECT_TRUE(honesty_cautions(device, report_with(TestKind::kRandomRead, 1e6, 4096)).empty());
}

TEST(RawioHonesty, BeyondTheLinkOrTheSeekRateOrMemoryLike) {
  TargetFacts nvme{
      true, true, false, false, {3.938e9, "its PCIe link (8.0 GT/s PCIe x4)", false, false}};
  EXPECT_TRUE(
      honesty_cautions(nvme, report_with(TestKind::kSequentialRead, 3.5e9, 1 << 20)).empty());
  auto c = honesty_cautions(nvme, report_with(TestKind::kSequentialRead, 5e9, 1 << 20));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].key, "exceeds_interface");
  EXPECT_EQ(
      c[0].text,
      "ssd SR: 5000 MB/s is more than its PCIe link (8.0 GT/s PCIe x4) can carry (3938 MB/s): "
      "a cache served it, or the figure is wrong");
  TargetFacts disk{true, true, false, false, {0, "", true, false}};
  EXPECT_EQ(honesty_cautions(disk, report_with(TestKind::kRandomRead, 20e6, 4096))[0].key,
            "rotating_random");  // 4883 random reads/s from one rotating disk
  EXPECT_TRUE(honesty_cautions(disk, report_with(TestKind::kSequentialRead, 20e6, 4096)).empty());
  TargetFacts file{false, true, false, false, {}};
  EXPECT_EQ(honesty_cautions(file, report_with(TestKind::kRandomRead, 30e9, 1 << 20))[0].key,
            "memory_speed");
  TargetFacts tmpfs{false, true, false, false, {0, "tmpfs or ramfs", false, true}};
  EXPECT_EQ(honesty_cautions(tmpfs, report_with(TestKind::kRandomRead, 1e6, 4096))[0].key,
            "memory_backed");
  TargetFacts null{false, true, false, true, {}};
  EXPECT_TRUE(honesty_cautions(null, report_with(TestKind::kRandomRead, 30e9, 4096)).empty());
}

TEST(RawioInterfaceLimit, LinkSpeedsFromSysfsText) {
  EXPECT_NEAR(*pcie_bytes_per_sec("8.0 GT/s PCIe", "4"), 3.938e9, 1e6);    // PCIe 3.0 x4
  EXPECT_NEAR(*pcie_bytes_per_sec("2.5 GT/s PCIe", "1"), 250e6, 1);        // 8b/10b
  EXPECT_NEAR(*pcie_bytes_per_sec("32.0 GT/s PCIe", "4"), 15.754e9, 1e6);  // PCIe 5.0 x4
  EXPECT_FALSE(pcie_bytes_per_sec("Unknown", "4"));
  EXPECT_NEAR(*sata_bytes_per_sec("6.0 Gb/s"), 600e6, 1);
  EXPECT_FALSE(sata_bytes_per_sec("<unknown>"));
}

TEST(RawioInterfaceLimit, ANvmePartitionInAFakeSysfs) {
  namespace fs = std::filesystem;
  testing::ScratchDir dir;
  const fs::path root = dir.path();
  const fs::path pci = root / "devices/pci0000:00/0000:00:04.0";
  const fs::path disk = pci / "nvme/nvme0/nvme0n1";
  fs::create_directories(disk / "nvme0n1p1");
  fs::create_directories(disk / "queue");
  fs::create_directories(root / "dev/block");
  auto put = [](const fs::path& p, const char* text) { std::ofstream(p) << text << "\n"; };
  put(disk / "queue/rotational", "0");
  put(disk / "nvme0n1p1/partition", "1");
  put(pci / "current_link_speed", "16.0 GT/s PCIe");
  put(pci / "current_link_width", "4");
  fs::create_directory_symlink(pci, pci / "nvme/nvme0/device");
  fs::create_directory_symlink(pci / "nvme/nvme0", disk / "device");
  fs::create_directory_symlink(disk / "nvme0n1p1", root / "dev/block/259:1");
  InterfaceLimit limit = block_device_limit(makedev(259, 1), root.string());
  EXPECT_NEAR(limit.bytes_per_sec, 7.877e9, 1e6);
  EXPECT_EQ(limit.what, "its PCIe link (16.0 GT/s PCIe x4)");
  EXPECT_FALSE(limit.rotational);
  EXPECT_EQ(block_device_limit(makedev(8, 0), root.string()).bytes_per_sec, 0);  // not there
}

}  // namespace
}  // namespace diskcond::rawio
