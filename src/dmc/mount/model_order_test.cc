#include "dmc/mount/model_order.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace diskcond::mount {
namespace {

TEST(MountModelOrder, OnlyEarlierSentRequestsHoldOneUp) {
  ModelOrder order;
  order.announce(10);
  order.announce(14);
  EXPECT_FALSE(order.earlier_pending(10));
  EXPECT_TRUE(order.earlier_pending(12));
  EXPECT_TRUE(order.earlier_pending(14));
  order.retire(10);
  EXPECT_FALSE(order.earlier_pending(12));
  EXPECT_FALSE(order.earlier_pending(14));  // itself
  EXPECT_TRUE(order.earlier_pending(16));
  order.retire(14);
  order.retire(14);  // idempotent
  EXPECT_FALSE(order.earlier_pending(16));
}

// The wait ends when the earlier request retires, or at the bound, which is counted.
TEST(MountModelOrder, AWaitEndsAtTheEarlierRequestsRetirementOrAtTheBound) {
  ModelOrder order;
  EXPECT_TRUE(order.await_turn(8, [] { return int64_t{0}; }));  // nothing earlier: no wait
  order.announce(6);
  int64_t fake_now = 0;
  EXPECT_FALSE(order.await_turn(
      8, [&fake_now] { return fake_now += 1000; }, 50'000));
  EXPECT_EQ(order.gave_up(), 1u);

  std::atomic<bool> waited{false};
  std::thread later([&] {
    waited = order.await_turn(8, [] { return int64_t{0}; });  // a clock that never moves
  });
  order.retire(6);
  later.join();
  EXPECT_TRUE(waited);
  EXPECT_EQ(order.gave_up(), 1u);
}

TEST(MountModelOrder, EachThreadHasItsOwnAnnouncedRequest) {
  set_announced_request(42);
  uint64_t other = 1;
  std::thread([&other] { other = announced_request(); }).join();
  EXPECT_EQ(other, 0u);
  EXPECT_EQ(announced_request(), 42u);
  set_announced_request(0);
}

}  // namespace
}  // namespace diskcond::mount
