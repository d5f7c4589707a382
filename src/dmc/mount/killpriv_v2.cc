#include "dmc/mount/killpriv_v2.h"

#include <linux/fuse.h>
#include <unistd.h>

namespace diskcond::mount {
void KillprivV2::never_ask() {
  init_done_.store(true, std::memory_order_relaxed);
}

void KillprivV2::saw_request(const void* message, size_t length) {
  if (init_done_.load(std::memory_order_relaxed)) return;
  if (length < sizeof(fuse_in_header) + sizeof(fuse_init_in)) return;
  const auto* header = static_cast<const fuse_in_header*>(message);
  if (header->opcode != FUSE_INIT) return;
  const auto* init = reinterpret_cast<const fuse_init_in*>(header + 1);
  init_unique_ = header->unique;
  offered_.store((init->flags & FUSE_HANDLE_KILLPRIV_V2) != 0, std::memory_order_relaxed);
}

void KillprivV2::patch_reply(struct iovec* iov, int count) {
  if (init_done_.load(std::memory_order_relaxed)) return;
  if (count < 2 || iov[0].iov_len < sizeof(fuse_out_header)) return;
  const auto* header = static_cast<const fuse_out_header*>(iov[0].iov_base);
  if (header->unique != init_unique_ || init_unique_ == 0) return;
  // The INIT reply (libfuse sends it before it reads another request).
  init_done_.store(true, std::memory_order_relaxed);
  constexpr size_t kFlagsEnd = offsetof(fuse_init_out, flags) + sizeof(uint32_t);
  if (header->error != 0 || iov[1].iov_len < kFlagsEnd || !offered_.load()) return;
  static_cast<fuse_init_out*>(iov[1].iov_base)->flags |= FUSE_HANDLE_KILLPRIV_V2;
  enabled_.store(true, std::memory_order_relaxed);
}

}  // namespace diskcond::mount
