#include "dmc/mount/send_stamps.h"

#include <gtest/gtest.h>

#include <vector>

namespace diskcond::mount {
namespace {

// The program's writes, as it makes them: the time, then the request's name.
void stamp(std::vector<SendStampSlot>& slots, uint64_t unique, uint64_t sent_ns) {
  SendStampSlot& slot = slots[SendStampTable::slot_of(unique)];
  slot.sent_ns.store(sent_ns);
  slot.unique.store(unique);
}

TEST(SendStampTable, RequestsNumberedInStepsOfTwoTakeNeighbouringSlotsAndWrapAround) {
  EXPECT_EQ(SendStampTable::slot_of(2), 1u);
  EXPECT_EQ(SendStampTable::slot_of(4), 2u);
  EXPECT_EQ(SendStampTable::slot_of(2 * SendStampTable::kSlots), 0u);
  EXPECT_EQ(SendStampTable::slot_of(2 * SendStampTable::kSlots + 2), 1u);
}

TEST(SendStampTable, ARequestsTimeIsFoundWhileItsSlotNamesIt) {
  std::vector<SendStampSlot> slots(SendStampTable::kSlots);
  const SendStampTable table(slots.data());
  stamp(slots, 2, 1'000'500);
  stamp(slots, 4, 1'000'900);
  EXPECT_EQ(table.sent_ns(2), 1'000'500);
  EXPECT_EQ(table.sent_ns(4), 1'000'900);
  EXPECT_EQ(table.sent_ns(6), 0);  // not sent yet (its slot is empty)
  EXPECT_EQ(table.sent_ns(0), 0);  // no request is numbered 0; an empty slot names it
}

// kSlots requests later the slot is another's: the old request is not found (its worker's read
// is its arrival), never given the newer request's time.
TEST(SendStampTable, ASlotTakenByALaterRequestNamesOnlyThatOne) {
  std::vector<SendStampSlot> slots(SendStampTable::kSlots);
  const SendStampTable table(slots.data());
  const uint64_t later = 2 + 2 * SendStampTable::kSlots;
  stamp(slots, 2, 1'000'500);
  stamp(slots, later, 9'000'000);
  EXPECT_EQ(table.sent_ns(2), 0);
  EXPECT_EQ(table.sent_ns(later), 9'000'000);
}

}  // namespace
}  // namespace diskcond::mount
