#include "dmc/cli/settings_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/units.h"
#include "dmc/cli/configure_values.h"
#include "dmc/mount/settings_json.h"
#include "test_support/scratch_dir.h"

namespace diskcond::dmc {
namespace {

class DmcSettingsStore : public ::testing::Test {
 protected:
  StoredMount record(const std::string& mount, bool boot) {
    StoredMount r;
    r.mount = mount;
    r.settings.profile = builtin_profiles()[2];
    r.settings.cache = mount::CacheMode::kNoCache;
    r.boot = boot;
    return r;
  }

  test_support::ScratchDir temp_{"dmc_store_test"};
  std::string root_ = temp_.path();
  SettingsStore store_{root_ + "/mounts"};
};

TEST(DmcSettingsStoreCacheMode, NamesRoundTripAndPageCacheMeansWriteThrough) {
  for (mount::CacheMode mode :
       {mount::CacheMode::kWriteBack, mount::CacheMode::kPageCache, mount::CacheMode::kNoCache}) {
    auto back = mount::parse_cache_mode_name(mount::cache_mode_name(mode));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(*back, mode);
  }
  EXPECT_EQ(mount::cache_mode_name(mount::CacheMode::kWriteBack), "writeback");
  EXPECT_EQ(*mount::parse_cache_mode_name("page_cache"),
            mount::CacheMode::kPageCache);  // stored before
  EXPECT_FALSE(mount::parse_cache_mode_name("page").ok());
}

TEST(DmcSettingsStoreEscape, LikeSystemdEscapePath) {
  EXPECT_EQ(escape_mount_path("/srv/data"), "srv-data");
  EXPECT_EQ(escape_mount_path("/srv/my data/"), "srv-my\\x20data");
  EXPECT_EQ(escape_mount_path("/a-b/.c"), "a\\x2db-.c");
  EXPECT_EQ(escape_mount_path("/"), "-");
}

TEST_F(DmcSettingsStore, NothingStoredIsNotAnError) {
  auto loaded = store_.load("/srv/data");
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_FALSE(loaded->has_value());
  EXPECT_TRUE(store_.list().mounts.empty());
  EXPECT_TRUE(store_.list().problems.empty());
}

TEST_F(DmcSettingsStore, SaveLoadRoundTripAndReplace) {
  StoredMount r = record("/srv/data", true);
  ASSERT_TRUE(store_.save(r).ok());
  auto loaded = store_.load("/srv/data");
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(**loaded, r);

  r.settings.profile = type_defaults(DiskType::kSSD);
  r.boot = false;
  ASSERT_TRUE(store_.save(r).ok());
  EXPECT_EQ(**store_.load("/srv/data"), r);
  EXPECT_EQ(store_.path_for("/srv/data"), root_ + "/mounts/srv-data.json");
  struct stat st {};
  ASSERT_EQ(::stat(store_.path_for("/srv/data").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // readable by `dmc status` without root
  EXPECT_FALSE(std::filesystem::exists(store_.path_for("/srv/data") + ".tmp"));
}

TEST_F(DmcSettingsStore, RemoveForgetsOneRecord) {
  ASSERT_TRUE(store_.save(record("/srv/data", true)).ok());
  ASSERT_TRUE(store_.save(record("/srv/other", true)).ok());
  ASSERT_TRUE(store_.remove("/srv/data").ok());
  EXPECT_FALSE(store_.load("/srv/data")->has_value());
  EXPECT_TRUE(store_.load("/srv/other")->has_value());
  EXPECT_TRUE(store_.remove("/srv/data").ok());  // nothing stored: nothing to do
}

TEST_F(DmcSettingsStore, ListReturnsRecordsAndReportsBadFiles) {
  ASSERT_TRUE(store_.save(record("/b", true)).ok());
  ASSERT_TRUE(store_.save(record("/a", false)).ok());
  std::ofstream(root_ + "/mounts/broken.json") << "{ not json";
  std::ofstream(root_ + "/mounts/wrong.json")
      << R"({"schema_version": 1, "mount": "/w", "boot": "yes"})";
  StoreListing listing = store_.list();
  ASSERT_EQ(listing.mounts.size(), 2u);
  EXPECT_EQ(listing.mounts[0].mount, "/a");
  EXPECT_EQ(listing.mounts[1].mount, "/b");
  ASSERT_EQ(listing.problems.size(), 2u);
  EXPECT_NE(listing.problems[0].find("broken.json: not valid JSON"), std::string::npos)
      << listing.problems[0];
  EXPECT_NE(listing.problems[1].find("wrong.json: 'boot'"), std::string::npos)
      << listing.problems[1];
}

TEST_F(DmcSettingsStore, CorruptOrMisplacedRecordIsAnErrorNamingTheFile) {
  std::filesystem::create_directories(root_ + "/mounts");
  std::ofstream(store_.path_for("/srv/data")) << "[]";
  auto loaded = store_.load("/srv/data");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().find("srv-data.json"), std::string::npos) << loaded.error();

  ASSERT_TRUE(store_.save(record("/elsewhere", false)).ok());
  std::filesystem::copy_file(store_.path_for("/elsewhere"), store_.path_for("/srv/data"),
                             std::filesystem::copy_options::overwrite_existing);
  loaded = store_.load("/srv/data");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().find("'/elsewhere'"), std::string::npos) << loaded.error();
}

TEST_F(DmcSettingsStore, VeryLongPathsGetAShortFileName) {
  std::string deep = "/" + std::string(300, 'x');
  std::string deep2 = "/" + std::string(299, 'x') + "y";
  EXPECT_LT(std::filesystem::path(store_.path_for(deep)).filename().string().size(), 255u);
  EXPECT_NE(store_.path_for(deep), store_.path_for(deep2));
  ASSERT_TRUE(store_.save(record(deep, false)).ok());
  EXPECT_EQ((*store_.load(deep))->mount, deep);
}

// Records written by earlier dmc versions (testdata/README.md) are still read, and a save writes
// the same keys back.
TEST_F(DmcSettingsStore, RecordsOfEarlierVersionsAreRead) {
  std::filesystem::create_directories(root_ + "/mounts");
  const std::string testdata = std::string(DISKCOND_SOURCE_DIR) + "/src/dmc/cli/testdata/";
  std::filesystem::copy_file(testdata + "srv-data.json", store_.path_for("/srv/data"));
  std::filesystem::copy_file(testdata + "srv-old.json", store_.path_for("/srv/old"));
  Profile custom = type_defaults(DiskType::kHDD);
  custom.access_time_ns = 1500;
  custom.read_bytes_per_sec = 80 * kMiB;
  custom.write_bytes_per_sec = 60 * kMiB;
  custom.queue_depth = 8;
  custom.max_read_bytes = kMiB;
  custom.max_write_bytes = 2 * kMiB;
  custom.max_read_segments = 64;
  custom.max_write_segments = 32;

  auto data = store_.load("/srv/data");
  ASSERT_TRUE(data.ok()) << data.error();
  ASSERT_TRUE(data->has_value());
  EXPECT_EQ(**data, (StoredMount{"/srv/data", {custom, mount::CacheMode::kPageCache}, false}));
  auto old = store_.load("/srv/old");
  ASSERT_TRUE(old.ok()) << old.error();
  ASSERT_TRUE(old->has_value());
  Profile old_custom = custom;
  old_custom.access_time_ns = 12000 * kNsPerUs;
  EXPECT_EQ(**old, (StoredMount{"/srv/old", {old_custom, mount::CacheMode::kNoCache}, true}));

  std::ifstream written(testdata + "srv-data.json");
  std::stringstream text;
  text << written.rdbuf();
  ASSERT_TRUE(store_.save(**data).ok());
  std::ifstream saved(store_.path_for("/srv/data"));
  std::stringstream saved_text;
  saved_text << saved.rdbuf();
  // Today's writer writes the same record, with the keys added since (the latency tail, the
  // capacity) at the end.
  std::string expected = text.str();
  const std::string last = "\"spinup_time_ns\": 0\n";
  ASSERT_NE(expected.find(last), std::string::npos);
  expected.replace(expected.find(last), last.size(),
                   "\"spinup_time_ns\": 0,\n    \"latency_tail\": 0,\n    \"latency_seed\": 0,\n"
                   "    \"capacity_bytes\": 0\n");
  EXPECT_EQ(saved_text.str(), expected);
}

TEST_F(DmcSettingsStore, LockIsExclusiveUntilReleased) {
  auto try_lock = [&] {
    int fd = ::open((root_ + "/mounts/.lock").c_str(), O_RDWR);
    EXPECT_GE(fd, 0);
    bool got = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return got;
  };
  {
    auto lock = store_.lock();
    ASSERT_TRUE(lock.ok()) << lock.error();
    EXPECT_FALSE(try_lock());
    StoreLock moved = std::move(lock).value();
    EXPECT_FALSE(try_lock());
  }
  EXPECT_TRUE(try_lock());
  EXPECT_TRUE(store_.list().mounts.empty());  // the lock file is not a record
  EXPECT_TRUE(store_.list().problems.empty());
}

}  // namespace
}  // namespace diskcond::dmc
