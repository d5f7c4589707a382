#include "dmc/mount/killpriv_v2.h"

#include <gtest/gtest.h>
#include <linux/fuse.h>

#include <cstring>
#include <vector>

namespace diskcond::mount {
namespace {

// The kernel's INIT request: header and body, with `flags`.
std::vector<char> init_request(uint64_t unique, uint32_t flags) {
  std::vector<char> message(sizeof(fuse_in_header) + sizeof(fuse_init_in));
  fuse_in_header header{};
  header.len = static_cast<uint32_t>(message.size());
  header.opcode = FUSE_INIT;
  header.unique = unique;
  fuse_init_in init{};
  init.major = 7;
  init.minor = 40;
  init.flags = flags;
  std::memcpy(message.data(), &header, sizeof header);
  std::memcpy(message.data() + sizeof header, &init, sizeof init);
  return message;
}

struct Reply {
  fuse_out_header header{};
  fuse_init_out init{};
  iovec iov[2] = {{&header, sizeof header}, {&init, sizeof init}};
};

TEST(KillprivV2, TheInitReplyAsksForItWhenTheKernelOffersIt) {
  KillprivV2 k;
  auto request = init_request(2, FUSE_ASYNC_READ | FUSE_HANDLE_KILLPRIV_V2);
  k.saw_request(request.data(), request.size());
  Reply reply;
  reply.header.unique = 2;
  reply.init.flags = FUSE_ASYNC_READ;
  k.patch_reply(reply.iov, 2);
  EXPECT_EQ(reply.init.flags, uint32_t{FUSE_ASYNC_READ | FUSE_HANDLE_KILLPRIV_V2});
  EXPECT_TRUE(k.enabled());
  // Every later message passes untouched, even one that looks like an INIT reply.
  Reply later;
  later.header.unique = 2;
  k.patch_reply(later.iov, 2);
  EXPECT_EQ(later.init.flags, 0u);
}

TEST(KillprivV2, NothingChangesWhenTheKernelDoesNotOfferIt) {
  KillprivV2 k;
  auto request = init_request(2, FUSE_ASYNC_READ);
  k.saw_request(request.data(), request.size());
  Reply reply;
  reply.header.unique = 2;
  k.patch_reply(reply.iov, 2);
  EXPECT_EQ(reply.init.flags, 0u);
  EXPECT_FALSE(k.enabled());
}

TEST(KillprivV2, OnlyTheReplyToInitIsPatched) {
  KillprivV2 k;
  auto request = init_request(4, FUSE_HANDLE_KILLPRIV_V2);
  k.saw_request(request.data(), request.size());
  Reply other;  // a reply to another request: untouched, and INIT's is still to come
  other.header.unique = 6;
  k.patch_reply(other.iov, 2);
  EXPECT_EQ(other.init.flags, 0u);
  Reply failed;  // INIT refused: nothing to ask for
  failed.header.unique = 4;
  failed.header.error = -EPROTO;
  k.patch_reply(failed.iov, 2);
  EXPECT_EQ(failed.init.flags, 0u);
  EXPECT_FALSE(k.enabled());
  // A short message or one that is not INIT is ignored.
  KillprivV2 fresh;
  fresh.saw_request(request.data(), sizeof(fuse_in_header));
  Reply reply;
  reply.header.unique = 4;
  fresh.patch_reply(reply.iov, 2);
  EXPECT_FALSE(fresh.enabled());
}

}  // namespace
}  // namespace diskcond::mount
