#include "rawio/verify.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "rawio/offsets.h"
#include "rawio/test_util.h"
#include "rawio/write_pattern.h"

namespace diskcond::rawio {
namespace {

TEST(RawioWritePattern, RandomBaseWithAStampPerSector) {
  std::vector<uint8_t> a(4096), b(4096);
  fill_write_base(a.data(), 4096, 7);
  fill_write_base(b.data(), 4096, 7);
  EXPECT_EQ(a, b);  // the same seed, the same block
  stamp_sectors(a.data(), 8192, 4096, 7);
  stamp_sectors(b.data(), 12288, 4096, 7);
  EXPECT_NE(a, b);  // another offset, other stamps: nothing to deduplicate
  uint64_t at = 0;
  memcpy(&at, a.data(), 8);
  EXPECT_EQ(at, 8192u);
  EXPECT_EQ(memcmp(a.data() + 16, b.data() + 16, 4080), 0);  // the rest is the random block
}

// A file written as a random-write test with (workers 2, seed 5) would have, then checked.
TEST(RawioVerify, FindsWhatWasWrittenAndOneCorruptByte) {
  testing::ScratchDir dir;
  Target target;
  target.name = target.io_path = dir.file("data");
  target.direct = false;
  TestSpec spec;
  spec.kind = TestKind::kRandomWrite;
  spec.transfer_bytes = 4096;
  spec.workers = 2;
  spec.area_bytes = 64 * 4096;
  spec.seed = 5;
  const std::vector<uint64_t> issued = {20, 30};
  int fd = ::open(target.io_path.c_str(), O_CREAT | O_RDWR, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(spec.area_bytes)), 0);
  std::vector<uint8_t> block(4096);
  for (unsigned w = 0; w < 2; ++w) {
    OffsetGenerator gen(true, spec.area_bytes, 4096, 2, w, 5);
    for (uint64_t i = 0; i < issued[w]; ++i) {
      uint64_t offset = gen.next();
      fill_write_base(block.data(), 4096, 5);
      stamp_sectors(block.data(), offset, 4096, 5);
      ASSERT_EQ(::pwrite(fd, block.data(), 4096, static_cast<off_t>(offset)), 4096);
    }
  }
  auto good = verify_written(target, spec, issued);
  ASSERT_TRUE(good) << good.error();
  EXPECT_TRUE(good->ok());
  EXPECT_GT(good->transfers_checked, 20u);  // distinct offsets of the 50 writes
  EXPECT_LE(good->transfers_checked, 50u);
  EXPECT_TRUE(good->through_page_cache);

  OffsetGenerator first(true, spec.area_bytes, 4096, 2, 0, 5);
  const uint64_t victim = first.next();
  const uint8_t junk = 0x5a;
  uint8_t was = 0;
  ASSERT_EQ(::pread(fd, &was, 1, static_cast<off_t>(victim + 100)), 1);
  ASSERT_EQ(::pwrite(fd, was == junk ? "\x5b" : "\x5a", 1, static_cast<off_t>(victim + 100)), 1);
  ::close(fd);
  auto bad = verify_written(target, spec, issued);
  ASSERT_TRUE(bad) << bad.error();
  EXPECT_FALSE(bad->ok());
  EXPECT_EQ(bad->mismatched, 1u);
  EXPECT_EQ(bad->first_bad_offset, victim);
  EXPECT_NE(bad->first_bad.find(fmt::format("byte 100 of the transfer at offset {}", victim)),
            std::string::npos)
      << bad->first_bad;
}

}  // namespace
}  // namespace diskcond::rawio
