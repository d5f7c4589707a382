#include "dmc/mount/worker_loop.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace diskcond::mount {
namespace {

// A CPU gets back the buffer it gave back last; another CPU gets a new one while fewer than
// kMaxBuffers exist.
TEST(MountReceiveBuffers, ACpuGetsTheBufferItUsedLast) {
  ReceiveBuffers buffers(/*huge=*/false);
  void* a = buffers.take(0);
  ASSERT_NE(a, nullptr);
  buffers.give(a, 0);
  void* b = buffers.take(1);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b, a);
  EXPECT_EQ(buffers.take(0), a);
  buffers.give(b, 1);
  buffers.give(a, 1);             // used on CPU 1 this time
  EXPECT_EQ(buffers.take(1), a);  // the last CPU 1 gave back
  EXPECT_EQ(buffers.take(1), b);
  EXPECT_EQ(buffers.made(), 2u);
}

// Once kMaxBuffers exist, a CPU none of whose buffers is free takes the one given back longest ago.
TEST(MountReceiveBuffers, AtTheLimitTheOldestBufferIsTaken) {
  ReceiveBuffers buffers(/*huge=*/false);
  std::vector<void*> taken;
  for (size_t i = 0; i < ReceiveBuffers::kMaxBuffers; ++i) taken.push_back(buffers.take(0));
  EXPECT_EQ(std::set<void*>(taken.begin(), taken.end()).size(), ReceiveBuffers::kMaxBuffers);
  for (void* buffer : taken) buffers.give(buffer, 0);
  EXPECT_EQ(buffers.take(1), taken.front());
  EXPECT_EQ(buffers.take(1), taken[1]);
  EXPECT_EQ(buffers.take(0), taken.back());  // CPU 0's newest
  EXPECT_EQ(buffers.made(), ReceiveBuffers::kMaxBuffers);
}

}  // namespace
}  // namespace diskcond::mount
