// The data rawio writes. One random block per test, from the seed, the same in every transfer
// buffer, with the first 16 bytes of every 4 KiB block replaced by a stamp of (the block's
// byte offset in the target, a hash of it and the seed). Random data does not compress; the
// stamps make every 4 KiB block of the area different, so nothing deduplicates either; and what any
// offset holds after a write test is known from the seed alone, so --verify can check it.
// Stamping costs one 16-byte store per 4 KiB of each write, on the worker's own buffer.
#pragma once

#include <string.h>

#include <cstdint>

namespace diskcond::rawio {

inline constexpr uint32_t kStampSectorBytes = 4096;

// Fills `length` bytes with the test's random block. The same seed gives the same bytes.
void fill_write_base(uint8_t* buffer, uint32_t length, uint64_t seed);

// Hot path (writes): stamps every 4 KiB block of a transfer of `length` bytes at `offset`.
inline void stamp_sectors(uint8_t* buffer, uint64_t offset, uint32_t length, uint64_t seed) {
  for (uint32_t i = 0; i + 16 <= length; i += kStampSectorBytes) {
    const uint64_t at = offset + i;
    uint64_t check = (at ^ seed) * 0x9e3779b97f4a7c15ull;
    check ^= check >> 29;
    memcpy(buffer + i, &at, 8);
    memcpy(buffer + i + 8, &check, 8);
  }
}

}  // namespace diskcond::rawio
