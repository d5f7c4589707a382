// The content of one 4 KiB block written by the load driver: 512 words, word 0 names the client,
// word 1 the block and its version, the rest follow from both. Version 0 is never written: a
// block that was never written reads as zeros.
#pragma once

#include <cstddef>
#include <cstdint>

namespace diskcond::harness::load {

constexpr size_t kBlockBytes = 4096;
// Versions of a block whose last write failed: its content is unknown (old or new).
constexpr uint32_t kUnknownVersion = UINT32_MAX;

// Fills `out` (kBlockBytes) for (client, block, version). REQUIRES: version >= 1.
void fill_block(char* out, uint32_t client, uint32_t block, uint32_t version);

// True when `data` (kBlockBytes) is what fill_block wrote for (client, block, version), zeros
// for version 0, or any well-formed block of (client, block) for kUnknownVersion.
bool block_matches(const char* data, uint32_t client, uint32_t block, uint32_t version);

}  // namespace diskcond::harness::load
