#include "core/units.h"

#include <gtest/gtest.h>

namespace diskcond {
namespace {

TEST(ParseSize, AcceptsSuffixesAndSectors) {
  EXPECT_EQ(*parse_size("4096"), 4096u);
  EXPECT_EQ(*parse_size("16k"), 16384u);
  EXPECT_EQ(*parse_size("16K"), 16384u);
  EXPECT_EQ(*parse_size("16KiB"), 16384u);
  EXPECT_EQ(*parse_size("1m"), kMiB);
  EXPECT_EQ(*parse_size("4g"), 4 * kGiB);
  EXPECT_EQ(*parse_size("2t"), 2 * 1024 * kGiB);
  EXPECT_EQ(*parse_size("512b"), 512u * 512u);
  EXPECT_EQ(*parse_size("8s"), 4096u);
  EXPECT_EQ(*parse_size("1.5k"), 1536u);
  EXPECT_EQ(*parse_size(" 64 k "), 65536u);
  EXPECT_EQ(*parse_size("0"), 0u);
}

TEST(ParseSize, RejectsBadTextNamingIt) {
  for (const char* bad : {"", "k", "-1", "1x", "1.2.3", "0.3k", "1e3", "99999999999999999999",
                          "16777216t", "1kk", "abc"}) {
    auto r = parse_size(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().find(std::string("'") + bad + "'"), std::string::npos) << r.error();
  }
}

TEST(ParseTime, UnitsAndDefault) {
  EXPECT_EQ(*parse_time_ns("52222us", TimeUnit::kMicroseconds), 52222000);
  EXPECT_EQ(*parse_time_ns("52222", TimeUnit::kMicroseconds), 52222000);
  EXPECT_EQ(*parse_time_ns("1.5ms", TimeUnit::kMicroseconds), 1500000);
  EXPECT_EQ(*parse_time_ns("8s", TimeUnit::kMicroseconds), 8000000000);
  EXPECT_EQ(*parse_time_ns("250ns", TimeUnit::kSeconds), 250);
  EXPECT_EQ(*parse_time_ns("3", TimeUnit::kSeconds), 3000000000);
  EXPECT_FALSE(parse_time_ns("3 hours", TimeUnit::kSeconds).ok());
  EXPECT_FALSE(parse_time_ns("-3ms", TimeUnit::kSeconds).ok());
  EXPECT_FALSE(parse_time_ns("0.5ns", TimeUnit::kSeconds).ok());
}

TEST(ParseRate, MegabytesAreBinaryAsInDmc) {
  EXPECT_EQ(*parse_rate("50MB/s"), 50 * kMiB);
  EXPECT_EQ(*parse_rate("50MiB/s"), 50 * kMiB);
  EXPECT_EQ(*parse_rate("50"), 50 * kMiB);
  EXPECT_EQ(*parse_rate("3GB/s"), 3 * kGiB);
  EXPECT_EQ(*parse_rate("800KB/s"), 800 * kKiB);
  EXPECT_EQ(*parse_rate("4096B/s"), 4096u);
  EXPECT_EQ(*parse_rate("0"), 0u);
  EXPECT_EQ(*parse_rate("0.5MB/s"), kMiB / 2);
  for (const char* bad : {"50MB", "fast", "50 s/s", "-5MB/s", "0.1B/s"}) {
    EXPECT_FALSE(parse_rate(bad).ok()) << bad;
  }
}

TEST(Format, SizesAndRates) {
  EXPECT_EQ(format_size(16384), "16 KiB");
  EXPECT_EQ(format_size(kMiB), "1 MiB");
  EXPECT_EQ(format_size(1000), "1000 B");
  EXPECT_EQ(format_rate_mb(0), "0 MB/s (unlimited)");
  EXPECT_EQ(format_rate_mb(50 * kMiB), "50 MB/s");
}

}  // namespace
}  // namespace diskcond
