#include "rawio/write_pattern.h"

#include "rawio/offsets.h"

namespace diskcond::rawio {

void fill_write_base(uint8_t* buffer, uint32_t length, uint64_t seed) {
  Random64 fill(seed ^ 0xb0f5'0000'0000ull);
  uint32_t i = 0;
  for (; i + 8 <= length; i += 8) {
    const uint64_t v = fill.next() | 1;  // never a zero word
    memcpy(buffer + i, &v, 8);
  }
  const uint64_t last = fill.next() | 1;
  memcpy(buffer + i, &last, length - i);
}

}  // namespace diskcond::rawio
