#include "dmc/cli/profile_catalog.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/units.h"
#include "test_support/scratch_dir.h"

namespace diskcond::dmc {
namespace {

class ProfileCatalogTest : public ::testing::Test {
 protected:
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_.file(name)) << text;
  }
  test_support::ScratchDir dir_{"diskcond-profiles"};
};

TEST_F(ProfileCatalogTest, FindsBuiltinsByIndexAndName) {
  ProfileCatalog catalog;
  EXPECT_EQ(catalog.find("0")->name, "Faulty 5400 HDD");
  EXPECT_EQ(catalog.find("7")->name, "PCIe 3 SSD");
  EXPECT_EQ(catalog.find("slow ssd")->name, "Slow SSD");
  EXPECT_EQ(catalog.find("SATA III SSD")->name, "SATA III SSD");
  auto missing = catalog.find("8");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("0 to 7"), std::string::npos);
  EXPECT_FALSE(catalog.find("Floppy").ok());
  EXPECT_FALSE(catalog.find("").ok());
}

TEST_F(ProfileCatalogTest, LoadsUserProfilesAfterBuiltins) {
  write("usb.toml", R"(name = "USB stick"
type = "SSD"
access_time = "800us"
read_throughput = "30MB/s"
write_throughput = 10
queue_depth = 4
max_read_bytes = "1m"
)");
  write("tape.toml", R"(name = "Old disk"
type = "hdd"
access_time = 25000
read_throughput = "20MB/s"
write_throughput = "20MB/s"
spinup_idle = "60s"
spinup_time = "3s"
)");
  write("notes.txt", "ignored: not a .toml file");
  ProfileCatalog catalog = ProfileCatalog::load({dir_.path(), dir_.file("missing")});
  EXPECT_TRUE(catalog.problems().empty());
  ASSERT_EQ(catalog.profiles().size(), 10u);
  EXPECT_EQ(catalog.profiles()[8].name, "Old disk");  // files in name order
  Profile usb = *catalog.find("9");
  EXPECT_EQ(usb.name, "USB stick");
  EXPECT_EQ(usb.access_time_ns, 800 * kNsPerUs);
  EXPECT_EQ(usb.read_bytes_per_sec, 30 * kMiB);
  EXPECT_EQ(usb.write_bytes_per_sec, 10 * kMiB);
  EXPECT_EQ(usb.queue_depth, 4u);
  EXPECT_EQ(usb.max_read_bytes, kMiB);
  Profile old = *catalog.find("old disk");
  EXPECT_EQ(old.type, DiskType::kHDD);
  EXPECT_EQ(old.spinup_ns, 3 * kNsPerSec);
}

// Issue 13, item 8: left-out keys take the defaults `dmc configure` uses (queue depth 32, 16 MiB
// HDD / 32 MiB SSD commands, 128 segments), not queue depth 1 and no command limit.
TEST_F(ProfileCatalogTest, LeftOutKeysTakeTheDefaultsOfConfigure) {
  write(
      "hdd.toml",
      "name = \"H\"\ntype = \"HDD\"\naccess_time = 1\nread_throughput = 1\nwrite_throughput = 1\n");
  write("ssd.toml",
        "name = \"S\"\ntype = \"ssd\"\naccess_time = 1\nread_throughput = 1\nwrite_throughput = 1\n"
        "max_write_segments = 7\n");
  ProfileCatalog catalog = ProfileCatalog::load({dir_.path()});
  ASSERT_TRUE(catalog.problems().empty()) << catalog.problems()[0];
  Profile hdd = *catalog.find("H");
  Profile expected = profile_defaults(DiskType::kHDD);
  expected.name = "H";
  expected.access_time_ns = kNsPerUs;
  expected.read_bytes_per_sec = expected.write_bytes_per_sec = kMiB;
  EXPECT_EQ(hdd, expected);
  EXPECT_EQ(hdd.queue_depth, 32u);
  EXPECT_EQ(hdd.max_read_bytes, 16 * kMiB);
  EXPECT_EQ(hdd.max_write_segments, 128u);
  Profile ssd = *catalog.find("S");
  EXPECT_EQ(ssd.queue_depth, 32u);
  EXPECT_EQ(ssd.max_write_bytes, 32 * kMiB);
  EXPECT_EQ(ssd.max_read_segments, 128u);
  EXPECT_EQ(ssd.max_write_segments, 7u);
}

TEST_F(ProfileCatalogTest, MalformedFilesAreSkippedWithFileAndLine) {
  write("a-syntax.toml", "name = \"Broken\"\ntype = \"SSD\"\naccess_time = = 3\n");
  write("b-value.toml",
        "name = \"Bad rate\"\ntype = \"SSD\"\naccess_time = 3\nread_throughput = \"fast\"\n"
        "write_throughput = 1\n");
  write("c-missing.toml", "name = \"No type\"\n");
  write("d-unknown.toml",
        "name = \"Typo\"\ntype = \"SSD\"\naccess_time = 3\nread_throughput = 1\nwrite_throughput = "
        "1\n"
        "queue_dept = 3\n");
  write("e-dup.toml",
        "name = \"slow ssd\"\ntype = \"SSD\"\naccess_time = 3\nread_throughput = "
        "1\nwrite_throughput = 1\n");
  write("f-good.toml",
        "name = \"Good\"\ntype = \"SSD\"\naccess_time = 3\nread_throughput = 1\nwrite_throughput = "
        "1\n");
  ProfileCatalog catalog = ProfileCatalog::load({dir_.path()});
  ASSERT_EQ(catalog.problems().size(), 5u);
  auto has = [&](int i, const std::string& text) {
    return catalog.problems()[i].find(text) != std::string::npos;
  };
  EXPECT_TRUE(has(0, "a-syntax.toml:3")) << catalog.problems()[0];
  EXPECT_TRUE(has(1, "b-value.toml:4: read_throughput")) << catalog.problems()[1];
  EXPECT_TRUE(has(2, "missing key 'type'")) << catalog.problems()[2];
  EXPECT_TRUE(has(3, "d-unknown.toml:6: unknown key 'queue_dept'")) << catalog.problems()[3];
  EXPECT_TRUE(has(4, "already taken")) << catalog.problems()[4];
  ASSERT_EQ(catalog.profiles().size(), 9u);
  EXPECT_EQ(catalog.profiles()[8].name, "Good");
}

}  // namespace
}  // namespace diskcond::dmc
