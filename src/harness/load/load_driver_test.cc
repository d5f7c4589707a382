// The load driver on a plain directory (no mount): it runs, checks what it reads, and its
// after-the-fact file check notices a damaged block.
#include "harness/load/load_driver.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "harness/load/block_pattern.h"

namespace diskcond::harness::load {
namespace {

TEST(LoadBlockPattern, MatchesOnlyItsOwnClientBlockAndVersion) {
  std::vector<char> b(kBlockBytes);
  fill_block(b.data(), 3, 7, 2);
  EXPECT_TRUE(block_matches(b.data(), 3, 7, 2));
  EXPECT_TRUE(block_matches(b.data(), 3, 7, kUnknownVersion));
  EXPECT_FALSE(block_matches(b.data(), 3, 7, 1));
  EXPECT_FALSE(block_matches(b.data(), 4, 7, 2));
  EXPECT_FALSE(block_matches(b.data(), 3, 8, 2));
  EXPECT_FALSE(block_matches(b.data(), 3, 7, 0));
  b[2000] ^= 1;
  EXPECT_FALSE(block_matches(b.data(), 3, 7, kUnknownVersion));
  std::vector<char> zeros(kBlockBytes, 0);
  EXPECT_TRUE(block_matches(zeros.data(), 3, 7, 0));
  EXPECT_TRUE(block_matches(zeros.data(), 3, 7, kUnknownVersion));
  EXPECT_FALSE(block_matches(zeros.data(), 3, 7, 1));
}

TEST(LoadDriver, RunsAMixOnAPlainDirectoryAndChecksTheFilesAfterwards) {
  char tmpl[] = "/var/tmp/diskcond-load-XXXXXX";  // not tmpfs: O_DIRECT works there
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  LoadOptions o;
  o.dir = tmpl;
  o.clients = 4;
  o.seconds = 0.5;
  o.file_bytes = 2 << 20;
  o.keep_files = true;
  const LoadReport r = run_load(o);
  EXPECT_EQ(r.errors, 0u) << (r.first_errors.empty() ? "" : r.first_errors[0]);
  EXPECT_EQ(r.data_errors, 0u);
  EXPECT_GT(r.operations(), 100u);
  for (size_t i = 0; i < kLoadOpCount; ++i) EXPECT_GT(r.ops[i].latency.count(), 0u) << i;
  EXPECT_EQ(r.ops[static_cast<size_t>(LoadOp::kFinalCheck)].bytes, 4u * (2 << 20));
  ASSERT_EQ(r.versions.size(), 4u);
  for (size_t c = 0; c < 4; ++c) EXPECT_EQ(check_client_file(o.dir, c, r.versions[c]), 0) << c;
  // Damage one block that was written: the check notices.
  size_t written = 0;
  while (written < r.versions[1].size() && r.versions[1][written] == 0) ++written;
  ASSERT_LT(written, r.versions[1].size());
  const int fd = open((o.dir + "/load-1").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "x", 1, static_cast<off_t>(written * kBlockBytes + 100)), 1);
  close(fd);
  EXPECT_EQ(check_client_file(o.dir, 1, r.versions[1]), 1);
  std::filesystem::remove_all(o.dir);
}

}  // namespace
}  // namespace diskcond::harness::load
