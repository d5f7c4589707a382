#include "dmc/mount/killpriv_v2.h"

#include <gtest/gtest.h>
#include <linux/fuse.h>

#include <cstring>
#include <vector>

#include "dmc/mount/fuse_init_test_support.h"

namespace diskcond::mount {
namespace {

using testing::init_request;

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
