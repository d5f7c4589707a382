#include "dmc/predict_report.h"

#include <gtest/gtest.h>

#include "core/units.h"

namespace diskcond::dmc {
namespace {

TEST(PredictReport, TableHasARowPerProfileWithExactFigures) {
  std::string table = format_prediction_table(builtin_profiles());
  EXPECT_NE(table.find("RND4K Q1 read"), std::string::npos);
  // Faulty 5400 HDD streams at 50 MiB/s; Slow SSD QD1 random reads at 8649 IOPS and its
  // queue-depth-32 random reads hit the 250 MiB/s channel: 64000 IOPS.
  EXPECT_NE(table.find("0   Faulty 5400 HDD       50.0 MiB/s"), std::string::npos) << table;
  EXPECT_NE(table.find("8649 IOPS"), std::string::npos) << table;
  EXPECT_NE(table.find("64000 IOPS"), std::string::npos) << table;
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 9);
  std::string one = format_prediction_table(builtin_profiles().subspan(3, 1), 3);
  EXPECT_NE(one.find("\n3   Slow SSD"), std::string::npos) << one;
}

TEST(PredictReport, JsonGivesBytesPerSecondAndNullForUnlimited) {
  Profile unlimited = builtin_profiles()[3];
  unlimited.access_time_ns = 0;
  unlimited.read_bytes_per_sec = unlimited.write_bytes_per_sec = 0;
  Profile both[] = {builtin_profiles()[0], unlimited};
  nlohmann::ordered_json j = predictions_json(both);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["profile"], "Faulty 5400 HDD");
  EXPECT_DOUBLE_EQ(j[0]["predictions"][0]["bytes_per_sec"].get<double>(), 50.0 * kMiB);
  EXPECT_EQ(j[0]["predictions"][5]["queue_depth"], 16);  // the profile's own depth
  EXPECT_TRUE(j[1]["predictions"][0]["iops"].is_null());
}

}  // namespace
}  // namespace diskcond::dmc
