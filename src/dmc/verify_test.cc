#include "dmc/verify.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/units.h"

namespace diskcond {
namespace {

namespace fs = std::filesystem;

class VerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("diskcond-verify-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    plan_.workloads = {standard_workloads()[4]};  // RND4K Q1 read
    plan_.seconds_per_test_ns = 300 * kNsPerMs;  // under the warm-up: the whole run counts
    plan_.min_file_bytes = 4 * kMiB;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  VerifyPlan plan_;
};

// A plain directory is far faster than a "Faulty 5400 HDD": verify must say so.
TEST_F(VerifyTest, PlainDirectoryFailsASlowProfile) {
  auto checks = verify_directory(dir_, builtin_profiles()[0], 100 * kGiB, plan_, nullptr);
  ASSERT_TRUE(checks.ok()) << checks.error();
  ASSERT_EQ(checks->size(), 1u);
  const VerifyCheck& c = (*checks)[0];
  EXPECT_FALSE(c.pass);
  EXPECT_GT(c.error, 10.0);  // more than 11 times the predicted IOPS
  EXPECT_GT(c.measured_iops, 0);
  // The prediction is for random offsets within the test file's share of 100 GiB (16 MiB: a
  // 0.3 s sequential pass at 50 MiB/s, plus 10%, in whole MiB).
  EXPECT_EQ(verify_file_bytes(builtin_profiles()[0], plan_), 16 * kMiB);
  EXPECT_NEAR(c.workload.span_fraction, 16.0 / (100 * 1024), 1e-12);
  EXPECT_TRUE(fs::is_empty(dir_));  // the test file is gone
}

TEST_F(VerifyTest, UnlimitedProfileHasNothingToMiss) {
  Profile unlimited = builtin_profiles()[3];
  unlimited.access_time_ns = 0;
  unlimited.read_bytes_per_sec = unlimited.write_bytes_per_sec = 0;
  auto checks = verify_directory(dir_, unlimited, 100 * kGiB, plan_, nullptr);
  ASSERT_TRUE(checks.ok()) << checks.error();
  EXPECT_TRUE((*checks)[0].pass);
  EXPECT_EQ((*checks)[0].error, 0);
}

TEST_F(VerifyTest, HddTestFileHoldsASequentialPassWithoutWrapping) {
  VerifyPlan plan;  // 4 s per workload
  EXPECT_EQ(verify_file_bytes(builtin_profiles()[0], plan), 220 * kMiB);  // 50 MiB/s * 4 s * 1.1
  EXPECT_EQ(verify_file_bytes(builtin_profiles()[2], plan), 660 * kMiB);
  EXPECT_EQ(verify_file_bytes(builtin_profiles()[3], plan), 64 * kMiB);   // SSDs have no seeks
  Profile fast_hdd = builtin_profiles()[2];
  fast_hdd.read_bytes_per_sec = 0;
  fast_hdd.write_bytes_per_sec = 0;
  EXPECT_EQ(verify_file_bytes(fast_hdd, plan), kGiB);
}

TEST_F(VerifyTest, MissingDirectoryIsAnError) {
  auto checks = verify_directory((dir_ / "missing").string(), builtin_profiles()[0], kGiB, plan_, nullptr);
  ASSERT_FALSE(checks.ok());
}

}  // namespace
}  // namespace diskcond
