// Test support: the kernel's FUSE_INIT request as it arrives on /dev/fuse, for the tests of the
// INIT hooks (killpriv_v2, fuse_uring_message).
#pragma once

#include <linux/fuse.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace diskcond::mount::testing {

// Header and body of an INIT request `unique` offering `flags` and `flags2` (protocol 7.44).
inline std::vector<char> init_request(uint64_t unique, uint32_t flags, uint32_t flags2 = 0) {
  std::vector<char> message(sizeof(fuse_in_header) + sizeof(fuse_init_in));
  fuse_in_header header{};
  header.len = static_cast<uint32_t>(message.size());
  header.opcode = FUSE_INIT;
  header.unique = unique;
  fuse_init_in init{};
  init.major = 7;
  init.minor = 44;
  init.flags = flags;
  init.flags2 = flags2;
  std::memcpy(message.data(), &header, sizeof header);
  std::memcpy(message.data() + sizeof header, &init, sizeof init);
  return message;
}

}  // namespace diskcond::mount::testing
