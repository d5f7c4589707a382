// dmc disk create / remove / list against the fakes: what each step asks of the machinery, the
// checks that come before any step, and the roll-back when a step fails.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "dmc/cli/cli_test_fixture.h"
#include "dmc/cli/disk_format.h"

namespace diskcond::dmc {
namespace {

namespace fs = std::filesystem;

const Profile& builtin(size_t i) {
  return builtin_profiles()[i];
}

class DmcDisk : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    image_ = mount_ + "/disk.img";
    target_ = root_ + "/target";
    fs::create_directories(target_);
    ASSERT_TRUE(store().lock().ok());  // the store and its lock file exist, as on a used machine
  }
  void condition(size_t profile) {
    fake_.add_running(mount_, mount::MountSettings{builtin(profile), mount::CacheMode::kPageCache});
  }

  // Everything a failed or rejected command must leave as it was.
  struct Snapshot {
    std::vector<std::string> files;
    std::map<std::string, std::string> store;
    std::map<std::string, mount::MountStatus>::size_type mounts = 0;
    size_t devices = 0;
    bool operator==(const Snapshot&) const = default;
  };
  Snapshot snapshot() const {
    Snapshot s;
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      if (e.path().string().find("/state") == std::string::npos)
        s.files.push_back(e.path().string());
    }
    s.store = store_files();
    s.mounts = fake_.mounts.size();
    s.devices = disks_.devices.size();
    return s;
  }

  std::string image_, target_;
};

TEST_F(DmcDisk, CreateAttachesMakesAFileSystemMountsAndPrintsTheDevice) {
  condition(0);
  ASSERT_EQ(run({"disk", "create", image_, "64m", "-mkfs", "ext4", "-mount", target_}), 0) << err();
  EXPECT_EQ(err(), "");
  EXPECT_EQ(out(), "/dev/loop0\n");
  EXPECT_EQ(disks_.calls,
            (std::vector<std::string>{"create " + image_, "attach " + image_, "mkfs /dev/loop0",
                                      "mount /dev/loop0 " + target_, "autoclear /dev/loop0"}));
  EXPECT_EQ(fs::file_size(image_), 64u << 20);
  EXPECT_EQ(fake_.changing_calls(),
            std::vector<std::string>{});  // the directory was conditioned already
}

TEST_F(DmcDisk, CreateWithoutMountKeepsTheDeviceUntilRemoved) {
  condition(3);
  ASSERT_EQ(run({"disk", "create", image_, "1g", "-json"}), 0) << err();
  EXPECT_EQ(disks_.calls, (std::vector<std::string>{"create " + image_, "attach " + image_}));
  auto doc = nlohmann::json::parse(out());
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["disk"]["device"], "/dev/loop0");
  EXPECT_EQ(doc["disk"]["image"], image_);
  EXPECT_EQ(doc["disk"]["conditioned_mount"], mount_);
  EXPECT_EQ(doc["disk"]["profile_name"], builtin(3).name);
  EXPECT_EQ(doc["disk"]["autoclear"], false);
  EXPECT_EQ(doc["disk"]["mount_points"], nlohmann::json::array());
  EXPECT_TRUE(doc["file_system"].is_null());
  EXPECT_EQ(doc["conditioning_started"], false);
}

TEST_F(DmcDisk, CreateInASubdirectoryOfTheConditionedOneUsesThatOne) {
  condition(2);
  fs::create_directories(mount_ + "/a/b");
  ASSERT_EQ(run({"disk", "create", mount_ + "/a/b/d.img", "8m", "-json"}), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(out())["disk"]["conditioned_mount"], mount_);
}

TEST_F(DmcDisk, StartConditionsTheImagesDirectoryFirstAndStoresItsSettings) {
  ASSERT_EQ(run({"disk", "create", image_, "16m", "2", "-start", "-json"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{"start " + mount_});
  EXPECT_EQ(fake_.mounts[mount_].settings.profile, builtin(2));
  auto stored = *store().load(mount_);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->settings.profile, builtin(2));
  EXPECT_EQ(nlohmann::json::parse(out())["conditioning_started"], true);
  // Already conditioned: -start changes nothing, the profile must match.
  ASSERT_EQ(run({"disk", "create", mount_ + "/two.img", "16m", "2", "-start"}), 0) << err();
  EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{"start " + mount_});
}

TEST_F(DmcDisk, BadValuesAndWrongStatesChangeNothing) {
  condition(0);
  std::ofstream(mount_ + "/exists.img") << "data";
  fs::create_directories(mount_ + "/sub");
  const std::string plain = root_ + "/plain";
  fs::create_directories(plain);
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"disk", "create", image_, "0"}, 2},
      {{"disk", "create", image_, "-1"}, 2},
      {{"disk", "create", image_, "x"}, 2},
      {{"disk", "create", image_, "1000k"}, 2},  // not whole 4 KiB blocks
      {{"disk", "create", image_, "512k"}, 2},   // below 1 MiB
      {{"disk", "create", image_, "17t"}, 2},
      {{"disk", "create", image_, "99999999999999999999"}, 2},
      {{"disk", "create", "", "64m"}, 2},
      {{"disk", "create", mount_ + "/sub", "64m"}, 2},
      {{"disk", "create", mount_ + "/sub/", "64m"}, 2},
      {{"disk", "create", mount_ + "/missing/x.img", "64m"}, 2},
      {{"disk", "create", file_ + "/x.img", "64m"}, 2},
      {{"disk", "create", image_, "64m", "99"}, 2},
      {{"disk", "create", image_, "64m", "-mkfs", "xfs"}, 2},
      {{"disk", "create", image_, "64m", "-mkfs", ""}, 2},
      {{"disk", "create", image_, "64m", "-mkfs"}, 2},
      {{"disk", "create", image_, "64m", "-mount", root_ + "/missing"}, 2},
      {{"disk", "create", image_, "64m", "-mkfs", "ext4", "-mount", file_}, 2},
      {{"disk", "create", image_, "64m", "-mount", target_}, 2},  // nothing to mount
      {{"disk", "create", image_, "64m", "-existing", "-mkfs", "ext4"}, 2},
      {{"disk", "create", image_, "64m", "-delete"}, 2},
      {{"disk", "create", image_}, 2},
      {{"disk", "create", image_, "64m", "0", "extra"}, 2},
      {{"disk", "list", "-start"}, 2},
      {{"disk", "list", "x"}, 2},
      {{"disk", "remove", image_, "-json"}, 2},
      {{"disk", "remove"}, 2},
      {{"disk", "remove", root_ + "/missing"}, 2},
      {{"disk", "remove", ""}, 2},
      {{"disk", "bogus"}, 2},
      {{"disk"}, 2},
      {{"disk", "create", mount_ + "/exists.img", "64m"}, 4},               // exists
      {{"disk", "create", mount_ + "/exists.img", "64m", "-existing"}, 4},  // 4 bytes, not 64 MiB
      {{"disk", "create", image_, "64m", "-existing"}, 4},                  // nothing to attach
      {{"disk", "create", plain + "/x.img", "64m"}, 4},                     // not conditioned
      {{"disk", "create", plain + "/x.img", "64m", "-start"}, 4},  // nothing stored, no profile
      {{"disk", "create", image_, "64m", "1"}, 4},                 // conditioned as 0
      {{"disk", "create", image_, "64m", "-mkfs", "ext4", "-mount", "/"},
       2},  // would hide the image
      {{"disk", "create", image_, "64m", "-mkfs", "ext4", "-mount", root_}, 2},
      {{"disk", "create", image_, "64m", "-mkfs", "ext4", "-mount", "/proc"}, 4},  // a mount point
      {{"disk", "remove", mount_ + "/exists.img"}, 4},                             // not attached
      {{"disk", "remove", target_}, 4},  // nothing mounted there
  };
  for (const auto& [args, code] : cases) {
    Snapshot before = snapshot();
    std::string line;
    for (const auto& a : args) line += "'" + a + "' ";
    EXPECT_EQ(run(args), code) << line << err();
    EXPECT_EQ(out(), "") << line;
    EXPECT_EQ(line_count(err()), 1u) << line << err();
    EXPECT_TRUE(snapshot() == before) << line;
    EXPECT_EQ(disks_.calls, std::vector<std::string>{}) << line;
    EXPECT_EQ(fake_.changing_calls(), std::vector<std::string>{}) << line;
  }
}

TEST_F(DmcDisk, CreateAndRemoveNeedRootListDoesNot) {
  condition(0);
  is_root_ = false;
  EXPECT_EQ(run({"disk", "create", image_, "64m"}), 3);
  EXPECT_NE(err().find("needs root"), std::string::npos) << err();
  EXPECT_EQ(run({"disk", "remove", image_}), 3);
  EXPECT_EQ(run({"disk", "list"}), 0) << err();
  EXPECT_FALSE(fs::exists(image_));
  EXPECT_EQ(disks_.calls, std::vector<std::string>{});
}

// Each step of create fails once in turn: what was done before it is undone, newest first.
TEST_F(DmcDisk, AFailedStepUndoesTheStepsBeforeIt) {
  struct Case {
    std::string FakeDiskControl::*fail;
    std::string name;
    std::vector<std::string> calls;  // after the failing one: the undo steps
  };
  const std::string img = image_;
  const std::vector<Case> cases = {
      {&FakeDiskControl::fail_create, "create", {"create " + img}},
      {&FakeDiskControl::fail_attach,
       "attach",
       {"create " + img, "attach " + img, "delete " + img}},
      {&FakeDiskControl::fail_mkfs,
       "mkfs",
       {"create " + img, "attach " + img, "mkfs /dev/loop0", "detach /dev/loop0", "delete " + img}},
      {&FakeDiskControl::fail_mount,
       "mount",
       {"create " + img, "attach " + img, "mkfs /dev/loop0", "mount /dev/loop0 " + target_,
        "detach /dev/loop0", "delete " + img}},
      {&FakeDiskControl::fail_autoclear,
       "autoclear",
       {"create " + img, "attach " + img, "mkfs /dev/loop0", "mount /dev/loop0 " + target_,
        "autoclear /dev/loop0", "unmount " + target_, "detach /dev/loop0", "delete " + img}},
  };
  for (const Case& c : cases) {
    disks_ = FakeDiskControl();
    fake_ = FakeMountControl();
    Snapshot before = snapshot();
    auto before_store = store_files();
    disks_.*c.fail = "boom";
    EXPECT_EQ(
        run({"disk", "create", image_, "64m", "3", "-start", "-mkfs", "ext4", "-mount", target_}),
        1)
        << c.name;
    EXPECT_NE(err().find("boom"), std::string::npos) << err();
    EXPECT_EQ(line_count(err()), 1u) << err();
    EXPECT_EQ(disks_.calls, c.calls) << c.name;
    EXPECT_EQ(fake_.changing_calls(),
              (std::vector<std::string>{"start " + mount_, "stop " + mount_}))
        << c.name;
    EXPECT_TRUE(snapshot() == before) << c.name;
    EXPECT_EQ(store_files(), before_store) << c.name;
  }
}

TEST_F(DmcDisk, AFailedStartChangesNothingAndAFailedUndoIsReported) {
  fake_.fail_start = "no fuse";
  EXPECT_EQ(run({"disk", "create", image_, "64m", "3", "-start"}), 1);
  EXPECT_NE(err().find("cannot condition " + mount_ + ": no fuse"), std::string::npos) << err();
  EXPECT_EQ(disks_.calls, std::vector<std::string>{});

  condition(3);
  disks_.fail_attach = "no loop";
  disks_.fail_delete = "read-only";
  EXPECT_EQ(run({"disk", "create", image_, "64m"}), 1);
  EXPECT_EQ(err(), "dmc: cannot create the disk " + image_ + ": no loop; undoing the creation of " +
                       image_ + " failed: read-only\n");
}

TEST_F(DmcDisk, ExistingAttachesTheImageAsItIsAndMountsWhatItFinds) {
  condition(0);
  { std::ofstream(image_).close(); }
  fs::resize_file(image_, 8u << 20);
  ASSERT_EQ(run({"disk", "create", image_, "8m", "-existing", "-mount", target_}), 0) << err();
  EXPECT_EQ(disks_.calls,
            (std::vector<std::string>{"attach " + image_, "mount /dev/loop0 " + target_,
                                      "autoclear /dev/loop0"}));
  // Attached once is enough.
  EXPECT_EQ(run({"disk", "create", image_, "8m", "-existing"}), 4);
  EXPECT_NE(err().find("already attached to /dev/loop0"), std::string::npos) << err();
  // No file system on it: the attach is undone and the image stays.
  ASSERT_EQ(run({"disk", "remove", target_}), 0) << err();
  disks_.calls.clear();
  disks_.probed_type = "";
  EXPECT_EQ(run({"disk", "create", image_, "8m", "-existing", "-mount", target_}), 4);
  EXPECT_EQ(disks_.calls, (std::vector<std::string>{"attach " + image_, "detach /dev/loop1"}));
  EXPECT_TRUE(fs::exists(image_));
}

// By image or mount directory here; by device in the real test (the fake has no device nodes).
TEST_F(DmcDisk, RemoveByImageOrMountDirectory) {
  condition(0);
  for (const std::string& what : std::vector<std::string>{image_, target_}) {
    ASSERT_EQ(run({"disk", "create", image_, "64m", "-mkfs", "ext4", "-mount", target_}), 0)
        << err();
    std::string device = out().substr(0, out().size() - 1);
    disks_.calls.clear();
    ASSERT_EQ(run({"disk", "remove", what, "-delete"}), 0) << err();
    EXPECT_EQ(disks_.calls, (std::vector<std::string>{"unmount " + target_, "detach " + device,
                                                      "delete " + image_}))
        << what;
    EXPECT_FALSE(fs::exists(image_));
    EXPECT_TRUE(disks_.devices.empty());
  }
}

TEST_F(DmcDisk, RemoveKeepsTheImageWithoutDeleteAndRemountsWhenAnUnmountFails) {
  condition(0);
  const std::string second = root_ + "/second";
  ASSERT_EQ(run({"disk", "create", image_, "64m", "-mkfs", "ext4", "-mount", target_}), 0) << err();
  disks_.devices[0].mounts.push_back({second, "ext4"});  // mounted a second time by hand
  // The newest mount goes first; the older one refuses: the newest is mounted back.
  disks_.calls.clear();
  disks_.fail_unmount_of = target_;
  EXPECT_EQ(run({"disk", "remove", image_}), 1);
  EXPECT_EQ(err(), "dmc: cannot remove /dev/loop0: " + target_ + " is busy\n");
  EXPECT_EQ(disks_.calls, (std::vector<std::string>{"unmount " + second, "unmount " + target_,
                                                    "mount /dev/loop0 " + second}));
  ASSERT_EQ(disks_.devices.size(), 1u);
  EXPECT_EQ(disks_.devices[0].mounts.size(), 2u);

  disks_.calls.clear();
  disks_.fail_unmount_of = "";
  ASSERT_EQ(run({"disk", "remove", image_}), 0) << err();
  EXPECT_EQ(disks_.calls, (std::vector<std::string>{"unmount " + second, "unmount " + target_,
                                                    "detach /dev/loop0"}));
  EXPECT_TRUE(fs::exists(image_));
  EXPECT_TRUE(disks_.devices.empty());
}

TEST_F(DmcDisk, ListAndRemoveOnlyKnowImagesInConditionedDirectories) {
  condition(5);
  ASSERT_EQ(run({"disk", "create", image_, "64m"}), 0) << err();
  const std::string outside = root_ + "/other.img";
  std::ofstream(outside).close();
  disks_.add_device(outside);  // someone else's loop device
  ASSERT_EQ(run({"disk", "list", "-json"}), 0) << err();
  auto doc = nlohmann::json::parse(out());
  ASSERT_EQ(doc["disks"].size(), 1u) << out();
  EXPECT_EQ(doc["disks"][0]["image"], image_);
  EXPECT_EQ(doc["disks"][0]["profile_name"], builtin(5).name);
  ASSERT_EQ(run({"disk", "list"}), 0) << err();
  EXPECT_EQ(line_count(out()), 2u) << out();
  EXPECT_EQ(out().rfind("DEVICE", 0), 0u) << out();
  EXPECT_NE(out().find("/dev/loop0  64 MiB  on   " + image_), std::string::npos) << out();
  disks_.calls.clear();
  EXPECT_EQ(run({"disk", "remove", outside}), 4);
  EXPECT_EQ(err(), "dmc: /dev/loop1 is not a dmc disk: its image " + outside +
                       " is not in a conditioned directory (detach it with losetup -d)\n");
  EXPECT_EQ(disks_.calls, std::vector<std::string>{});
}

TEST_F(DmcDisk, ListPrintsNothingWithoutDisks) {
  ASSERT_EQ(run({"disk", "list"}), 0) << err();
  EXPECT_EQ(out(), "");
  ASSERT_EQ(run({"disk", "list", "-json"}), 0) << err();
  EXPECT_EQ(out(), "{\n  \"schema_version\": 1,\n  \"disks\": []\n}\n");
}

TEST(DmcDiskDocs, EveryDiskJsonKeyIsDocumented) {
  std::ifstream in(std::string(DISKCOND_SOURCE_DIR) + "/docs/dmc.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  DiskView view;
  view.disk.mounts.push_back({"/mnt", "ext4"});
  std::function<void(const nlohmann::ordered_json&)> check = [&](const nlohmann::ordered_json& j) {
    for (const auto& [key, value] : j.items()) {
      EXPECT_NE(doc.find("`" + key + "`"), std::string::npos)
          << "docs/dmc.md does not document key " << key;
      if (value.is_object()) check(value);
    }
  };
  check(disk_create_json(view, "ext4", true));
  check(disk_list_json({view}));
}

}  // namespace
}  // namespace diskcond::dmc
