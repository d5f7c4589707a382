// dmc disk through the built binary on a real conditioned mount, a real loop device and ext4:
// the round trip (create, mkfs, mount, write, remove, attach again, read, remove and delete),
// -start, and failures that must leave nothing behind. Skips where the machine cannot mount
// FUSE or has no loop devices.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "tools/bad_input_harness.h"

namespace diskcond::tools {
namespace {

namespace fs = std::filesystem;

// "/dev/loopN" of every bound loop device whose backing file starts with `prefix`.
std::vector<std::string> loops_under(const std::string& prefix) {
  std::vector<std::string> found;
  DIR* dir = ::opendir("/sys/block");
  if (dir == nullptr) return found;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name.rfind("loop", 0) != 0) continue;
    std::ifstream in("/sys/block/" + name + "/loop/backing_file");
    std::string backing;
    if (std::getline(in, backing) && backing.rfind(prefix, 0) == 0) found.push_back("/dev/" + name);
  }
  ::closedir(dir);
  return found;
}

class DmcDiskMount : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "dmc disk needs root";
    if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
    if (::access("/dev/loop-control", R_OK | W_OK) != 0) GTEST_SKIP() << "no loop devices";
    if (std::system("command -v mkfs.ext4 >/dev/null 2>&1 || test -x /usr/sbin/mkfs.ext4 || test "
                    "-x /sbin/mkfs.ext4") != 0) {
      GTEST_SKIP() << "no mkfs.ext4";
    }
    fs::create_directories(world_.path("cond"));
    fs::create_directories(world_.path("mnt"));
    fs::create_directories(world_.path("plain"));
    fs::create_directories(world_.path("bin"));
    fs::create_directories(world_.path("state/mounts"));
    std::ofstream(world_.path("state/mounts/.lock"))
        .close();  // the store's lock, as on a used machine
  }
  void TearDown() override {
    // However the test ended: no mount on a disk, no loop device over an image, no conditioning.
    for (const std::string& device : loops_under(world_.path(""))) {
      std::system(
          ("umount " + world_.path("mnt") + " 2>/dev/null; losetup -d " + device + " 2>/dev/null")
              .c_str());
    }
    for (const char* dir : {"cond", "cond2"}) dmc({"stop", world_.path(dir), "-force"});
  }

  ProgramRun dmc(const std::vector<std::string>& args, std::optional<uid_t> uid = std::nullopt,
                 const std::string& path = "/usr/bin:/bin:/usr/sbin:/sbin") {
    return run_program(DMC_BINARY, args,
                       {"DISKCOND_STATE_DIR=" + world_.path("state"),
                        "DISKCOND_PROFILE_DIR=" + world_.path("profiles"), "PATH=" + path,
                        "LC_ALL=C", "HOME=" + world_.path("home")},
                       world_.path(""), world_.io_dir(), uid);
  }

  // `dmc <args>` must fail with `code`, one line, and leave no loop device, file or mount behind.
  void expect_refused(const std::vector<std::string>& args, int code,
                      std::optional<uid_t> uid = std::nullopt) {
    world_.freeze();
    ProgramRun run = dmc(args, uid);
    expect_rejected("dmc", args, code, run);
    world_.expect_unchanged("dmc " + shown_words(args));
    EXPECT_EQ(loops_under(world_.path("")), std::vector<std::string>{}) << shown_words(args);
  }

  SweepWorld world_{"dmc_disk_test"};
};

std::string random_bytes(size_t n) {
  std::mt19937_64 rng(42);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

TEST_F(DmcDiskMount, CreateMkfsMountWriteReadRemoveRoundTrip) {
  const std::string cond = world_.path("cond"), mnt = world_.path("mnt"),
                    image = cond + "/disk.img";
  ProgramRun started = dmc({"start", cond, "7"});
  ASSERT_EQ(started.code, 0) << started.err;

  ProgramRun created =
      dmc({"disk", "create", image, "32m", "-mkfs", "ext4", "-mount", mnt, "-json"});
  ASSERT_EQ(created.code, 0) << created.err;
  EXPECT_EQ(created.err, "");
  auto doc = nlohmann::json::parse(created.out);
  const std::string device = doc["disk"]["device"];
  EXPECT_EQ(device.rfind("/dev/loop", 0), 0u) << created.out;
  EXPECT_EQ(doc["disk"]["image"], image);
  EXPECT_EQ(doc["disk"]["size_bytes"], 32u << 20);
  EXPECT_EQ(doc["disk"]["block_bytes"], 4096);
  EXPECT_EQ(doc["disk"]["direct_io"], true);
  EXPECT_EQ(doc["disk"]["autoclear"], true);
  EXPECT_EQ(doc["disk"]["conditioned_mount"], cond);
  EXPECT_EQ(doc["disk"]["profile_name"], "PCIe 3 SSD");
  EXPECT_EQ(doc["disk"]["mount_points"], nlohmann::json::array({mnt}));
  EXPECT_EQ(doc["file_system"], "ext4");
  EXPECT_EQ(doc["conditioning_started"], false);

  // The file system's writes reach the conditioned mount.
  auto writes = [&] {
    auto status = nlohmann::json::parse(dmc({"status", cond, "-json"}).out);
    return status["counters"]["write_bytes"].get<uint64_t>();
  };
  const uint64_t before = writes();
  const std::string data = random_bytes(1 << 20);
  {
    std::ofstream out(mnt + "/data", std::ios::binary);
    out << data;
  }
  ASSERT_EQ(std::system(("sync -f " + mnt + "/data").c_str()), 0);
  EXPECT_GE(writes(), before + (1u << 20));

  ProgramRun listed = dmc({"disk", "list"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find(device + " "), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find(mnt), std::string::npos) << listed.out;

  // Stopping the conditioning is refused while the disk uses it.
  EXPECT_NE(dmc({"stop", cond}).code, 0);

  ProgramRun removed = dmc({"disk", "remove", device});
  ASSERT_EQ(removed.code, 0) << removed.err;
  EXPECT_EQ(loops_under(world_.path("")), std::vector<std::string>{});
  EXPECT_TRUE(mounts_under(world_.path("mnt")).empty());
  EXPECT_TRUE(fs::exists(image));
  // Other dmc disks may exist on the machine (a benchmark's): this one must be gone from the list.
  EXPECT_EQ(dmc({"disk", "list"}).out.find(image), std::string::npos);

  ProgramRun again = dmc({"disk", "create", image, "32m", "-existing", "-mount", mnt});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(read_whole_file(mnt + "/data"), data);

  ProgramRun deleted = dmc({"disk", "remove", mnt, "-delete"});
  ASSERT_EQ(deleted.code, 0) << deleted.err;
  EXPECT_FALSE(fs::exists(image));
  EXPECT_EQ(loops_under(world_.path("")), std::vector<std::string>{});
  ProgramRun stopped = dmc({"stop", cond});
  EXPECT_EQ(stopped.code, 0) << stopped.err;
}

TEST_F(DmcDiskMount, StartConditionsTheDirectoryAndADiskWithoutMountStaysUntilRemoved) {
  const std::string cond = world_.path("cond2"), image = cond + "/d.img";
  fs::create_directories(cond);
  ProgramRun created = dmc({"disk", "create", image, "16m", "7", "-start"});
  ASSERT_EQ(created.code, 0) << created.err;
  const std::string device = created.out.substr(0, created.out.size() - 1);
  EXPECT_EQ(loops_under(world_.path("")), std::vector<std::string>{device});
  ProgramRun status = dmc({"status", cond});
  EXPECT_EQ(status.out.rfind("Disk Mount Conditioner: ON\nProfile: PCIe 3 SSD\n", 0), 0u)
      << status.out;
  ProgramRun removed = dmc({"disk", "remove", image, "-delete"});
  ASSERT_EQ(removed.code, 0) << removed.err;
  EXPECT_EQ(loops_under(world_.path("")), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(image));
  EXPECT_EQ(dmc({"stop", cond}).code, 0);
}

TEST_F(DmcDiskMount, BadInputAndWrongStateChangeNothing) {
  const std::string cond = world_.path("cond"), mnt = world_.path("mnt");
  ASSERT_EQ(dmc({"start", cond, "7"}).code, 0);
  std::ofstream(cond + "/exists.img") << "data";
  expect_refused({"disk", "create", world_.path("plain/x.img"), "16m"}, 4);  // not conditioned
  expect_refused({"disk", "create", cond + "/exists.img", "16m"}, 4);
  expect_refused({"disk", "create", cond + "/x.img", "16"}, 2);
  expect_refused({"disk", "create", cond + "/x.img", "1000k", "-mkfs", "ext4"},
                 2);                                                   // not whole 4 KiB blocks
  expect_refused({"disk", "create", cond + "/x.img", "16m", "0"}, 4);  // the directory is profile 7
  expect_refused({"disk", "create", cond + "/x.img", "16m"}, 3, 65534);  // not root
  expect_refused({"disk", "remove", cond + "/exists.img"}, 4);
  expect_refused({"disk", "remove", cond + "/exists.img", "-delete"}, 3, 65534);
}

// A step that fails (here mkfs, replaced by one that fails) undoes every step before it: the
// loop device, the image and the conditioning -start began.
TEST_F(DmcDiskMount, AFailedMkfsUndoesEverything) {
  const std::string cond = world_.path("cond"), bin = world_.path("bin");
  {
    std::ofstream script(bin + "/mkfs.ext4");
    script << "#!/bin/sh\necho 'mkfs.ext4: pretend failure' >&2\nexit 1\n";
  }
  fs::permissions(bin + "/mkfs.ext4", fs::perms::owner_all);
  auto before = tree_fingerprint(world_.path(""));
  ProgramRun run = dmc({"disk", "create", cond + "/d.img", "16m", "7", "-start", "-mkfs", "ext4"},
                       std::nullopt, bin + ":/usr/bin:/bin");
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find("pretend failure"), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(loops_under(world_.path("")), std::vector<std::string>{});
  EXPECT_FALSE(fs::exists(cond + "/d.img"));
  EXPECT_TRUE(mounts_under(cond).empty());
  EXPECT_EQ(dmc({"status", cond}).out.rfind("Disk Mount Conditioner: OFF\nProfile: None\n", 0), 0u);
  // Everything as it was, but for the directory's mtime: the image was made in it, then removed.
  auto after = tree_fingerprint(world_.path(""));
  before.erase("cond");
  after.erase("cond");
  EXPECT_EQ(fingerprint_diff(before, after), "");
}

}  // namespace
}  // namespace diskcond::tools
