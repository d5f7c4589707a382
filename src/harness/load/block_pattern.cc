#include "harness/load/block_pattern.h"

#include <cstring>

namespace diskcond::harness::load {
namespace {

constexpr uint64_t kMagic = 0x4c4f4144ull << 32;  // "LOAD"
constexpr size_t kWords = kBlockBytes / 8;

uint64_t body_word(uint64_t head, uint64_t id, size_t i) {
  uint64_t x = head ^ (id * 0x9e3779b97f4a7c15ull) ^ (i * 0xbf58476d1ce4e5b9ull);
  x ^= x >> 31;
  return x * 0x94d049bb133111ebull;
}

}  // namespace

void fill_block(char* out, uint32_t client, uint32_t block, uint32_t version) {
  uint64_t words[kWords];
  words[0] = kMagic | client;
  words[1] = (static_cast<uint64_t>(block) << 32) | version;
  for (size_t i = 2; i < kWords; ++i) words[i] = body_word(words[0], words[1], i);
  std::memcpy(out, words, kBlockBytes);
}

bool block_matches(const char* data, uint32_t client, uint32_t block, uint32_t version) {
  uint64_t words[kWords];
  std::memcpy(words, data, kBlockBytes);
  bool zeros = true;
  for (uint64_t w : words) zeros = zeros && w == 0;
  if (version == 0 || (zeros && version == kUnknownVersion)) return zeros;
  if (words[0] != (kMagic | client) || (words[1] >> 32) != block) return false;
  const uint32_t found = static_cast<uint32_t>(words[1]);
  if (found == 0 || (version != kUnknownVersion && found != version)) return false;
  for (size_t i = 2; i < kWords; ++i) {
    if (words[i] != body_word(words[0], words[1], i)) return false;
  }
  return true;
}

}  // namespace diskcond::harness::load
