// Tests' stand-in for the BPF program's array (send_stamps.h): slots written as the program
// writes them.
#pragma once

#include <linux/fuse.h>

#include <cstdint>
#include <vector>

#include "dmc/mount/send_stamps.h"

namespace diskcond::mount {

class FakeSendStamps {
 public:
  FakeSendStamps() : slots_(SendStampTable::kSlots), table_(slots_.data()) {}
  FakeSendStamps(const FakeSendStamps&) = delete;
  FakeSendStamps& operator=(const FakeSendStamps&) = delete;

  // The program's writes, in its order: the time, the opcode and the CPU, then the request's name.
  void stamp(uint64_t unique, uint64_t sent_ns, uint32_t opcode = FUSE_READ, uint32_t cpu = 0) {
    SendStampSlot& slot = slots_[SendStampTable::slot_of(unique)];
    slot.sent_ns.store(sent_ns);
    slot.opcode.store(opcode);
    slot.cpu.store(cpu);
    slot.unique.store(unique);
  }
  const SendStampTable& table() const { return table_; }

 private:
  std::vector<SendStampSlot> slots_;
  SendStampTable table_;
};

}  // namespace diskcond::mount
