#include "dmc/mount/reply_pipes.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace diskcond::mount {
namespace {

constexpr size_t kFileBytes = 1 << 20;

// A temporary file of kFileBytes whose byte i is i % 251.
class ReplyPipesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/reply_pipes_test_XXXXXX";
    fd_ = mkstemp(name);
    ASSERT_GE(fd_, 0);
    unlink(name);
    std::vector<char> data(kFileBytes);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i % 251);
    ASSERT_EQ(write(fd_, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  }
  void TearDown() override { close(fd_); }

  // Everything `filled` holds, read out of its pipe.
  static std::string drain(const ReplyPipes::Filled& filled) {
    std::string out(filled.bytes(), '\0');
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = read(filled.read_fd(), out.data() + got, out.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    out.resize(got);
    return out;
  }

  static std::string expected(size_t offset, size_t bytes) {
    std::string out(bytes, '\0');
    for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<char>((offset + i) % 251);
    return out;
  }

  int fd_ = -1;
  ReplyPipes pipes_;
};

TEST_F(ReplyPipesTest, APieceIsSplicedWholeAndReadsAsTheFile) {
  bool spliced = false;
  const ReplyPipes::Filled filled = pipes_.fill(fd_, 4096, 256 * 1024, &spliced);
  ASSERT_TRUE(spliced);
  ASSERT_TRUE(filled.has_data());
  EXPECT_EQ(filled.bytes(), 256u * 1024);
  EXPECT_EQ(drain(filled), expected(4096, 256 * 1024));
}

TEST_F(ReplyPipesTest, AnUnalignedOffsetIsSplicedWholeToo) {
  bool spliced = false;
  const ReplyPipes::Filled filled = pipes_.fill(fd_, 1000, ReplyPipes::kMaxBytes, &spliced);
  ASSERT_TRUE(spliced);
  EXPECT_EQ(drain(filled), expected(1000, ReplyPipes::kMaxBytes));
}

TEST_F(ReplyPipesTest, TheEndOfTheFileGivesFewerBytes) {
  bool spliced = false;
  const ReplyPipes::Filled filled = pipes_.fill(fd_, kFileBytes - 100000, 256 * 1024, &spliced);
  ASSERT_TRUE(spliced);
  EXPECT_EQ(filled.bytes(), 100000u);
  EXPECT_EQ(drain(filled), expected(kFileBytes - 100000, 100000));
}

TEST_F(ReplyPipesTest, ReadsOutsideTheSplicedSizesAreLeftToPread) {
  bool spliced = true;
  EXPECT_FALSE(pipes_.fill(fd_, 0, ReplyPipes::kMinBytes - 4096, &spliced).has_data());
  EXPECT_FALSE(spliced);
  spliced = true;
  EXPECT_FALSE(pipes_.fill(fd_, 0, ReplyPipes::kMaxBytes + 4096, &spliced).has_data());
  EXPECT_FALSE(spliced);
  EXPECT_EQ(pipes_.pipes_made(), 0u);
}

TEST_F(ReplyPipesTest, ADrainedPipeIsUsedAgainAndAFullOneIsClosed) {
  bool spliced = false;
  {
    const ReplyPipes::Filled first = pipes_.fill(fd_, 0, 128 * 1024, &spliced);
    drain(first);
  }
  {
    const ReplyPipes::Filled second = pipes_.fill(fd_, 0, 128 * 1024, &spliced);
    ASSERT_TRUE(spliced);
    EXPECT_EQ(pipes_.pipes_made(), 1u);  // the first one's pipe, empty again
    EXPECT_EQ(drain(second), expected(0, 128 * 1024));
  }
  {
    // Not drained (a reply that failed): its data must never reach another read.
    const ReplyPipes::Filled third = pipes_.fill(fd_, 0, 128 * 1024, &spliced);
    ASSERT_TRUE(spliced);
  }
  EXPECT_EQ(pipes_.pipes_made(), 0u);
}

TEST_F(ReplyPipesTest, NoMoreThanTheMostPipesAtOnce) {
  std::vector<ReplyPipes::Filled> held;
  bool spliced = false;
  for (size_t i = 0; i < ReplyPipes::kMaxPipes; ++i) {
    held.push_back(pipes_.fill(fd_, 0, ReplyPipes::kMinBytes, &spliced));
    ASSERT_TRUE(spliced) << "pipe " << i;
  }
  EXPECT_FALSE(pipes_.fill(fd_, 0, ReplyPipes::kMinBytes, &spliced).has_data());
  EXPECT_FALSE(spliced);
  EXPECT_EQ(pipes_.pipes_made(), ReplyPipes::kMaxPipes);
}

}  // namespace
}  // namespace diskcond::mount
