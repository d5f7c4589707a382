#include "rawio/latency_log_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "rawio/test_util.h"

namespace diskcond::rawio {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

std::string contents(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(LatencyLogPath, ANewOrOtherFileIsFine) {
  ScratchDir dir;
  const std::string target = dir.path() + "/data", other = dir.path() + "/other.csv";
  std::ofstream(target) << "target";
  std::ofstream(other) << "old log";
  EXPECT_TRUE(check_latency_log_path(dir.path() + "/new.csv", {target}).ok());
  EXPECT_TRUE(check_latency_log_path(other, {target}).ok());
}

TEST(LatencyLogPath, ATargetIsRefusedByInodeAndByName) {
  ScratchDir dir;
  const std::string target = dir.path() + "/data";
  std::ofstream(target) << "target";
  fs::create_directories(dir.path() + "/sub");
  for (const std::string& log : {target, dir.path() + "/sub/../data"}) {
    Status s = check_latency_log_path(log, {dir.path() + "/x", target});
    ASSERT_FALSE(s.ok()) << log;
    EXPECT_EQ(s.error(), "--latency-log: " + log + " is the target " + target +
                             "; the log must be another file");
  }
  fs::create_hard_link(target, dir.path() + "/link");
  EXPECT_FALSE(check_latency_log_path(dir.path() + "/link", {target}).ok());
  // A target rawio is still to make is no file yet: refused by its name.
  EXPECT_FALSE(check_latency_log_path(dir.path() + "/made", {dir.path() + "/made"}).ok());
}

TEST(LatencyLogPath, ABlockDeviceIsRefused) {
  // Only stat(2)ed, never opened.
  std::string device;
  for (const auto& entry : fs::directory_iterator("/dev")) {
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
      device = entry.path();
      break;
    }
  }
  if (device.empty()) GTEST_SKIP() << "no block device under /dev";
  Status s = check_latency_log_path(device, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "--latency-log: " + device +
                           " is a block device; the log is written to a file, never a disk");
}

TEST(LatencyLogFile, DiscardRemovesAFileItMadeAndKeepsOneThatWasThere) {
  ScratchDir dir;
  const std::string made = dir.path() + "/made.csv", there = dir.path() + "/there.csv";
  auto log = LatencyLogFile::open(made);
  ASSERT_TRUE(log.ok()) << log.error();
  EXPECT_TRUE(fs::exists(made));
  log->discard();
  EXPECT_FALSE(fs::exists(made));

  std::ofstream(there) << "old";
  auto again = LatencyLogFile::open(there);
  ASSERT_TRUE(again.ok());
  std::fputs("new", again->get());
  again->discard();
  EXPECT_TRUE(fs::exists(there));
  EXPECT_EQ(contents(there), "new");
}

TEST(LatencyLogFile, AFileThatCannotBeMadeIsOneLine) {
  ScratchDir dir;
  auto log = LatencyLogFile::open(dir.path() + "/no/such/x.csv");
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.error(), "--latency-log: cannot create " + dir.path() +
                             "/no/such/x.csv: No such file or directory");
}

}  // namespace
}  // namespace diskcond::rawio
