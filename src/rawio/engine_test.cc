#include "rawio/engine.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include "rawio/test_util.h"

namespace diskcond::rawio {
namespace {

constexpr uint32_t kBlock = 4096;

struct AlignedBuffer {
  explicit AlignedBuffer(size_t bytes) {
    void* p = nullptr;
    EXPECT_EQ(posix_memalign(&p, 4096, bytes), 0);
    data = static_cast<uint8_t*>(p);
  }
  ~AlignedBuffer() { free(data); }
  uint8_t* data;
};

// Reaps until `want` completions have arrived; returns them.
std::vector<Completion> reap_all(Engine& engine, unsigned want) {
  std::vector<Completion> all, batch(want);
  while (all.size() < want) {
    int n = engine.reap(1, batch);
    EXPECT_GT(n, 0);
    if (n <= 0) break;
    all.insert(all.end(), batch.begin(), batch.begin() + n);
  }
  return all;
}

class RawioEngineTest : public ::testing::TestWithParam<const EngineInfo*> {};

TEST_P(RawioEngineTest, ReadsTheRightBytesAtEachOffsetWithSeveralInFlight) {
  testing::ScratchDir dir;
  std::string path = dir.file("data");
  testing::write_pattern_file(path, 8 * kBlock);
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
  ASSERT_GE(fd, 0);
  auto engine = GetParam()->make();
  const unsigned depth = GetParam()->caps.synchronous ? 1 : 4;
  ASSERT_TRUE(engine->open(fd, depth).ok());
  AlignedBuffer buf(4 * kBlock);
  const uint64_t offsets[4] = {7 * kBlock, 0, 3 * kBlock, 5 * kBlock};
  for (unsigned i = 0; i < 4; i += depth) {
    for (unsigned s = i; s < i + depth; ++s) {
      engine->queue({buf.data + s * kBlock, offsets[s], kBlock, s, false});
    }
    ASSERT_EQ(engine->submit(), 0);
    for (const Completion& c : reap_all(*engine, depth)) EXPECT_EQ(c.result, kBlock) << c.slot;
  }
  for (unsigned s = 0; s < 4; ++s) {
    for (uint32_t b = 0; b < kBlock; b += 511) {
      ASSERT_EQ(buf.data[s * kBlock + b], testing::pattern_byte(offsets[s] + b)) << s << " " << b;
    }
  }
  engine.reset();
  ::close(fd);
}

TEST_P(RawioEngineTest, WritesLandAtTheirOffsets) {
  testing::ScratchDir dir;
  std::string path = dir.file("data");
  testing::write_zero_file(path, 4 * kBlock);
  int fd = ::open(path.c_str(), O_RDWR | O_DIRECT);
  ASSERT_GE(fd, 0);
  auto engine = GetParam()->make();
  ASSERT_TRUE(engine->open(fd, 1).ok());
  AlignedBuffer buf(kBlock);
  memset(buf.data, 0xab, kBlock);
  engine->queue({buf.data, 2 * kBlock, kBlock, 0, true});
  ASSERT_EQ(engine->submit(), 0);
  auto done = reap_all(*engine, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].result, kBlock);
  engine.reset();
  ::close(fd);
  auto data = testing::read_file(path);
  EXPECT_EQ(data[2 * kBlock], 0xab);
  EXPECT_EQ(data[3 * kBlock - 1], 0xab);
  EXPECT_EQ(data[2 * kBlock - 1], 0);
  EXPECT_EQ(data[3 * kBlock], 0);
}

TEST_P(RawioEngineTest, ReportsErrnoOfAFailedTransfer) {
  testing::ScratchDir dir;
  std::string path = dir.file("data");
  testing::write_zero_file(path, kBlock);
  int fd = ::open(path.c_str(), O_RDONLY);  // writes to a read-only descriptor fail with EBADF
  auto engine = GetParam()->make();
  ASSERT_TRUE(engine->open(fd, 1).ok());
  AlignedBuffer buf(kBlock);
  engine->queue({buf.data, 0, kBlock, 0, true});
  int rc = engine->submit();
  if (rc < 0) {
    EXPECT_EQ(rc, -EBADF);  // libaio refuses at io_submit
  } else {
    auto done = reap_all(*engine, 1);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].result, -EBADF);
  }
  engine.reset();
  ::close(fd);
}

INSTANTIATE_TEST_SUITE_P(Engines, RawioEngineTest, ::testing::ValuesIn(testing::data_engines()));

TEST(RawioNullEngine, CompletesEverythingWithoutTouchingTheTarget) {
  testing::ScratchDir dir;
  std::string path = dir.file("data");
  testing::write_zero_file(path, 4 * kBlock);
  int fd = ::open(path.c_str(), O_RDWR);
  const EngineInfo* null_engine = find_engine("null");
  ASSERT_NE(null_engine, nullptr);
  EXPECT_FALSE(null_engine->caps.moves_data);
  auto engine = null_engine->make();
  ASSERT_TRUE(engine->open(fd, 8).ok());
  uint8_t buf[16] = {1};
  for (uint32_t s = 0; s < 8; ++s) engine->queue({buf, s * 16ull, 16, s, true});
  ASSERT_EQ(engine->submit(), 0);
  auto done = reap_all(*engine, 8);
  ASSERT_EQ(done.size(), 8u);
  uint32_t slots = 0;
  for (const auto& c : done) {
    EXPECT_EQ(c.result, 16);
    slots |= 1u << c.slot;
  }
  EXPECT_EQ(slots, 0xffu);
  ::close(fd);
  for (uint8_t b : testing::read_file(path)) ASSERT_EQ(b, 0);
}

TEST(RawioEngineRegistry, KnowsEveryEngineByName) {
  EXPECT_EQ(engine_names(), "psync, io_uring, libaio, null");
  EXPECT_EQ(engines().front(), &default_engine());
  EXPECT_EQ(default_engine().name, "psync");
  EXPECT_TRUE(default_engine().caps.synchronous);
  for (const EngineInfo* info : engines()) {
    EXPECT_EQ(find_engine(info->name), info);
    EXPECT_NE(info->make(), nullptr) << info->name;
  }
  EXPECT_EQ(find_engine("posixaio"), nullptr);
}

}  // namespace
}  // namespace diskcond::rawio
