#include "dmc/mount/buffer_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace diskcond::mount {
namespace {

// Pools whose counts the tests check run "on" CPU 0 throughout, whatever CPU the thread is on.
int cpu_zero() {
  return 0;
}

TEST(BufferPool, BuffersAreAlignedAndAtLeastTheSizeAsked) {
  BufferPool pool(8 << 20);
  for (size_t size : {size_t{0}, size_t{1}, size_t{4096}, size_t{4097}, size_t{1} << 20}) {
    auto b = pool.get(size);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_EQ(b.size(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 4096, 0u);
    std::memset(b.data(), 0xab, size);  // ASan: the whole size is usable
  }
}

TEST(BufferPool, DataBuffersAreAlignedToTheirPageSize) {
  // The worker loop's receive size: 1 MiB plus a page for the request's header.
  const size_t bytes = (size_t{1} << 20) + 4096;
  for (bool huge : {false, true}) {
    char* p = allocate_data_buffer(bytes, huge);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (huge ? 2u << 20 : 4096u), 0u) << huge;
    std::memset(p, 0xef, huge ? BufferPool::huge_allocation_bytes(bytes) : bytes);  // ASan
    std::free(p);
  }
}

TEST(BufferPool, SteadyTrafficReusesBuffers) {
  BufferPool pool(16 << 20, cpu_zero);
  for (int i = 0; i < 100; ++i) {
    auto a = pool.get(1 << 20);
    auto b = pool.get(4096);
    auto c = pool.get(3000);  // same class as 4096
  }
  // The 1 MiB buffers: kHugeRotation used in turn, each a 2 MiB page.
  EXPECT_EQ(pool.allocations(), BufferPool::kHugeRotation + 2u);
  EXPECT_EQ(pool.cached_bytes(), BufferPool::kHugeRotation * (2u << 20) + 2 * 4096);
}

TEST(BufferPool, CachedMemoryStaysUnderTheCap) {
  BufferPool pool(1 << 20, cpu_zero);
  {
    std::vector<BufferPool::Buffer> held;
    for (int i = 0; i < 8; ++i) held.push_back(pool.get(256 << 10));
  }
  EXPECT_EQ(pool.cached_bytes(), 1u << 20);  // four kept, four freed
  EXPECT_EQ(pool.allocations(), 8u);
}

TEST(BufferPool, TheFirstOneMebibyteBuffersAreWholeHugePages) {
  EXPECT_EQ(BufferPool::huge_allocation_bytes(1 << 20), 2u << 20);
  EXPECT_EQ(BufferPool::huge_allocation_bytes(4 << 20), 4u << 20);
  BufferPool pool(64 << 20, cpu_zero);
  const int n = BufferPool::kMaxHugeBuffers + 2;
  {
    std::vector<BufferPool::Buffer> held;
    for (int i = 0; i < n; ++i) {
      held.push_back(pool.get(1 << 20));
      ASSERT_NE(held.back().data(), nullptr);
      std::memset(held.back().data(), 0xcd, 1 << 20);
      const bool huge = i < BufferPool::kMaxHugeBuffers;
      EXPECT_EQ(held.back().huge(), huge) << i;
      if (huge) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(held.back().data()) % (2 << 20), 0u);
      }
    }
    EXPECT_EQ(pool.huge_buffers(), BufferPool::kMaxHugeBuffers);
    EXPECT_FALSE(pool.get(512 << 10).huge());  // smaller sizes stay ordinary
  }
  // Kept: the huge ones at 2 MiB each, the rest at their size (and the 512 KiB one).
  EXPECT_EQ(pool.cached_bytes(),
            BufferPool::kMaxHugeBuffers * (2u << 20) + 2 * (1u << 20) + (512u << 10));
  // Taken again, the huge ones come first.
  auto again = pool.get(1 << 20);
  EXPECT_TRUE(again.huge());
}

TEST(BufferPool, AHugeBufferOverTheCapIsFreedAndCountedOut) {
  BufferPool pool(2 << 20, cpu_zero);
  {
    auto a = pool.get(1 << 20);
    auto b = pool.get(1 << 20);
    EXPECT_TRUE(a.huge() && b.huge());
    EXPECT_EQ(pool.huge_buffers(), 2);
  }
  EXPECT_EQ(pool.cached_bytes(), 2u << 20);  // one kept, one freed
  EXPECT_EQ(pool.huge_buffers(), 1);
}

TEST(BufferPool, HugeBuffersAreNotKept) {
  BufferPool pool(64 << 20);
  {
    auto b = pool.get(BufferPool::kMaxPooledBytes + 1);
    ASSERT_NE(b.data(), nullptr);
  }
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(BufferPool, ABufferKeptByTheCallersCpuIsTakenFirst) {
  int cpu = 0;
  BufferPool pool(8 << 20, [&cpu] { return cpu; });
  auto a = pool.get(64 << 10);
  auto b = pool.get(64 << 10);
  char* const a_data = a.data();
  char* const b_data = b.data();
  cpu = 1;
  a = BufferPool::Buffer();  // kept by CPU 1
  cpu = 0;
  b = BufferPool::Buffer();  // kept by CPU 0, the more recent
  cpu = 1;
  auto c = pool.get(64 << 10);
  EXPECT_EQ(c.data(), a_data);
  cpu = 2;  // none of its own: the most recently kept
  auto d = pool.get(64 << 10);
  EXPECT_EQ(d.data(), b_data);
  EXPECT_EQ(pool.allocations(), 2u);
}

TEST(BufferPool, HugeBuffersAreUsedInTurnOldestFirst) {
  BufferPool pool(64 << 20, cpu_zero);
  std::vector<char*> order;
  for (int i = 0; i < 3 * BufferPool::kHugeRotation; ++i) {
    auto b = pool.get(1 << 20);
    ASSERT_TRUE(b.huge());
    order.push_back(b.data());
  }
  EXPECT_EQ(pool.allocations(), static_cast<uint64_t>(BufferPool::kHugeRotation));
  for (size_t i = BufferPool::kHugeRotation; i < order.size(); ++i) {
    EXPECT_EQ(order[i], order[i - BufferPool::kHugeRotation]) << i;
  }
}

TEST(BufferPool, ASmallCapKeepsOneHugeBufferInUse) {
  BufferPool pool(4 << 20, cpu_zero);  // room for two 1 MiB buffers, not for kHugeRotation
  for (int i = 0; i < 20; ++i) {
    auto b = pool.get(1 << 20);
    EXPECT_TRUE(b.huge());
  }
  EXPECT_EQ(pool.allocations(), 1u);
}

TEST(BufferPool, AHugeBufferOfAnotherCpuIsTakenOnlyWhenNoNewOneMayBeMade) {
  int cpu = 0;
  BufferPool pool(64 << 20, [&cpu] { return cpu; });
  std::vector<BufferPool::Buffer> held;
  for (int i = 0; i < BufferPool::kHugeRotation; ++i) held.push_back(pool.get(1 << 20));
  std::vector<char*> cpu0;
  for (const auto& b : held) cpu0.push_back(b.data());
  held.clear();  // all kept by CPU 0
  cpu = 1;       // CPU 1 gets new ones while it may
  for (int i = BufferPool::kHugeRotation; i < BufferPool::kMaxHugeBuffers; ++i) {
    held.push_back(pool.get(1 << 20));
    ASSERT_TRUE(held.back().huge());
    EXPECT_EQ(std::count(cpu0.begin(), cpu0.end(), held.back().data()), 0) << i;
  }
  EXPECT_EQ(pool.huge_buffers(), BufferPool::kMaxHugeBuffers);
  auto other = pool.get(1 << 20);  // then CPU 0's oldest
  EXPECT_EQ(other.data(), cpu0.front());
  cpu = 0;  // CPU 0 its own, oldest first
  auto own = pool.get(1 << 20);
  EXPECT_EQ(own.data(), cpu0[1]);
  EXPECT_EQ(pool.allocations(), static_cast<uint64_t>(BufferPool::kMaxHugeBuffers));
}

TEST(BufferPool, MovedBufferIsReturnedOnce) {
  BufferPool pool(8 << 20);
  {
    auto a = pool.get(8192);
    BufferPool::Buffer b = std::move(a);
    EXPECT_EQ(a.data(), nullptr);
    BufferPool::Buffer c;
    c = std::move(b);
    EXPECT_NE(c.data(), nullptr);
  }
  EXPECT_EQ(pool.cached_bytes(), 8192u);
}

TEST(BufferPool, TakenAndGivenBackFromManyThreads) {
  BufferPool pool(16 << 20);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      std::vector<BufferPool::Buffer> held;
      for (int i = 0; i < 2000; ++i) {
        held.push_back(pool.get(size_t{4096} << (i % 5)));
        held.back().data()[0] = static_cast<char>(t);
        if (held.size() > 8) held.erase(held.begin());
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(pool.cached_bytes(), 16u << 20);
  EXPECT_LT(pool.allocations(), 4u * 2000 / 10);  // nearly everything was reused
}

}  // namespace
}  // namespace diskcond::mount
