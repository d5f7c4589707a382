#include "dmc/mount/send_order.h"

#include <gtest/gtest.h>
#include <linux/fuse.h>

#include <chrono>
#include <thread>

#include "core/clock.h"
#include "dmc/mount/send_stamps_fake.h"

namespace diskcond::mount {
namespace {

constexpr uint64_t kMs = 1'000'000;

// A 4 MiB O_DIRECT read: four requests sent 3 us apart after a getattr, numbered 10 to 16.
class SendOrderTest : public ::testing::Test {
 protected:
  SendOrderTest() : order(stamps.table()) {
    stamps.stamp(8, 100 * kMs - 50'000, FUSE_GETATTR);
    for (uint64_t unique = 10; unique <= 16; unique += 2) {
      stamps.stamp(unique, 100 * kMs + (unique - 10) * 1'500, FUSE_READ);
    }
  }
  FakeSendStamps stamps;
  SendOrder order;
};

TEST_F(SendOrderTest, ARequestWaitsForTheNearestEarlierDataRequestNotYetAtTheModel) {
  EXPECT_EQ(order.earlier_unreached(10), 0u);  // the first piece: only a getattr before it
  EXPECT_EQ(order.earlier_unreached(16), 14u);
  order.reached(14);
  EXPECT_EQ(order.earlier_unreached(16), 12u);
  order.reached(12);
  order.reached(10);
  EXPECT_EQ(order.earlier_unreached(16), 0u);
}

TEST_F(SendOrderTest, OnlyReadsAndWritesSentWithinTheWindowAreWaitedFor) {
  stamps.stamp(18, 100 * kMs + 20'000, FUSE_WRITE);
  EXPECT_EQ(order.earlier_unreached(18), 16u);  // a write waits for a read sent before it
  // A getattr in between is not waited for, and a request sent more than the window after the
  // earlier ones does not look back past them.
  stamps.stamp(20, 100 * kMs + 21'000, FUSE_GETATTR);
  stamps.stamp(22, 100 * kMs + SendOrder::kWindowNs + 30'000, FUSE_READ);
  EXPECT_EQ(order.earlier_unreached(22), 0u);
}

TEST_F(SendOrderTest, NumbersWithoutAStampAreSkippedAndAnUnstampedRequestWaitsForNothing) {
  // 18 is a forget's number (never stamped); 20 still finds 16.
  stamps.stamp(20, 100 * kMs + 20'000, FUSE_READ);
  EXPECT_EQ(order.earlier_unreached(20), 16u);
  EXPECT_EQ(order.earlier_unreached(24), 0u);  // not stamped: nothing known of its send
}

// A slot taken by a request kSlots later is not mistaken for the earlier one having arrived.
TEST_F(SendOrderTest, AReachedMarkNamesOneRequestOnly) {
  order.reached(14 + 2 * SendStampTable::kSlots);
  EXPECT_EQ(order.earlier_unreached(16), 14u);
}

// (A wait of up to 60 s here: a loaded machine may start the other thread late.)
TEST_F(SendOrderTest, AWaitEndsWhenTheEarlierRequestsReachTheModel) {
  SendOrder patient(stamps.table(), 60'000 * kMs);
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    patient.reached(10);
    patient.reached(12);
    patient.reached(14);
  });
  EXPECT_EQ(patient.wait_for_earlier(16), SendOrder::Wait::kWaited);
  other.join();
  EXPECT_EQ(patient.earlier_unreached(16), 0u);
  EXPECT_EQ(patient.waits(), 1u);
  EXPECT_EQ(patient.timeouts(), 0u);
  EXPECT_GE(patient.waited_ns(), 1'000'000);  // the other thread slept 2 ms first
  EXPECT_EQ(patient.wait_for_earlier(16), SendOrder::Wait::kNone);
  EXPECT_EQ(patient.waits(), 1u);
}

// An earlier request that never gets there (interrupted, refused before the model) holds the
// later one kMaxWaitNs, no longer (on a loaded machine, a little longer: the check is after a
// yield).
TEST_F(SendOrderTest, AWaitForARequestThatNeverArrivesRunsOut) {
  const int64_t start = monotonic_now_ns();
  EXPECT_EQ(order.wait_for_earlier(12), SendOrder::Wait::kTimedOut);
  const int64_t waited = monotonic_now_ns() - start;
  EXPECT_GE(waited, SendOrder::kMaxWaitNs);
  EXPECT_LT(waited, 100 * SendOrder::kMaxWaitNs);
  EXPECT_EQ(order.timeouts(), 1u);
  EXPECT_GE(order.waited_ns(), SendOrder::kMaxWaitNs);
}

}  // namespace
}  // namespace diskcond::mount
