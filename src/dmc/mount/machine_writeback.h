// The write-back parameters of this machine: Linux's vm.dirty_* settings and its dirtyable
// memory, so a writeback mount holds as much dirty data, as long, as the kernel would for a
// local disk. The journal goes in the middle of the pretend device, as mke2fs places it.
#pragma once

#include <cstdint>
#include <string>

#include "core/writeback.h"

namespace diskcond::mount {

// Reads `<proc>/sys/vm/dirty_{background_ratio,background_bytes,ratio,bytes,expire_centisecs,
// writeback_centisecs}` and `<proc>/meminfo` (MemFree + Active(file) + Inactive(file), what
// Linux counts as dirtyable). Anything missing or unreadable keeps WritebackParams' default.
// REQUIRES: capacity > 0.
WritebackParams machine_writeback_params(uint64_t capacity, const std::string& proc = "/proc");

}  // namespace diskcond::mount
