#include "dmc/mount/send_stamps.h"

#include <gtest/gtest.h>
#include <linux/fuse.h>

#include "dmc/mount/send_stamps_fake.h"

namespace diskcond::mount {
namespace {

TEST(SendStampTable, RequestsNumberedInStepsOfTwoTakeNeighbouringSlotsAndWrapAround) {
  EXPECT_EQ(SendStampTable::slot_of(2), 1u);
  EXPECT_EQ(SendStampTable::slot_of(4), 2u);
  EXPECT_EQ(SendStampTable::slot_of(2 * SendStampTable::kSlots), 0u);
  EXPECT_EQ(SendStampTable::slot_of(2 * SendStampTable::kSlots + 2), 1u);
}

TEST(SendStampTable, ARequestsTimeOpcodeAndCpuAreFoundWhileItsSlotNamesIt) {
  FakeSendStamps stamps;
  const SendStampTable& table = stamps.table();
  stamps.stamp(2, 1'000'500);
  stamps.stamp(4, 1'000'900, FUSE_WRITE, 1);
  EXPECT_EQ(table.sent(2).cpu, 0);
  EXPECT_EQ(table.sent(4).cpu, 1);
  EXPECT_EQ(table.sent(6).cpu, -1);
  EXPECT_EQ(table.sent_ns(2), 1'000'500);
  EXPECT_EQ(table.sent_ns(4), 1'000'900);
  EXPECT_EQ(table.sent(2).opcode, static_cast<uint32_t>(FUSE_READ));
  EXPECT_EQ(table.sent(4).opcode, static_cast<uint32_t>(FUSE_WRITE));
  EXPECT_EQ(table.sent_ns(6), 0);  // not sent yet (its slot is empty)
  EXPECT_EQ(table.sent_ns(0), 0);  // no request is numbered 0; an empty slot names it
}

// kSlots requests later the slot is another's: the old request is not found (its worker's read
// is its arrival), never given the newer request's time.
TEST(SendStampTable, ASlotTakenByALaterRequestNamesOnlyThatOne) {
  FakeSendStamps stamps;
  const SendStampTable& table = stamps.table();
  const uint64_t later = 2 + 2 * SendStampTable::kSlots;
  stamps.stamp(2, 1'000'500);
  stamps.stamp(later, 9'000'000, FUSE_GETATTR);
  EXPECT_EQ(table.sent_ns(2), 0);
  EXPECT_EQ(table.sent(2).opcode, 0u);
  EXPECT_EQ(table.sent(2).cpu, -1);
  EXPECT_EQ(table.sent_ns(later), 9'000'000);
}

}  // namespace
}  // namespace diskcond::mount
