#include "dmc/mount/fuse_uring_message.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "dmc/mount/fuse_init_test_support.h"

namespace diskcond::mount {
namespace {

using uring_abi::RequestHeader;

// An entry's payload buffer with its prefix, as FuseUring allocates it.
struct EntryBuffers {
  explicit EntryBuffers(size_t capacity) : bytes(kMessagePrefixBytes + capacity, '\xee') {}
  char* payload() { return bytes.data() + kMessagePrefixBytes; }
  size_t capacity() const { return bytes.size() - kMessagePrefixBytes; }
  RequestHeader header{};
  std::vector<char> bytes;
};

// What the kernel writes for a request: header, first argument in op_in, the rest as payload.
void kernel_writes(EntryBuffers& e, uint32_t opcode, uint64_t unique, const void* op_struct,
                   size_t struct_bytes, const std::string& payload) {
  fuse_in_header in{};
  in.len = static_cast<uint32_t>(sizeof in + struct_bytes + payload.size());
  in.opcode = opcode;
  in.unique = unique;
  in.nodeid = 7;
  std::memcpy(e.header.in_out, &in, sizeof in);
  std::memcpy(e.header.op_in, op_struct, struct_bytes);
  std::memcpy(e.payload(), payload.data(), payload.size());
  e.header.ring_ent_in_out.commit_id = unique;
  e.header.ring_ent_in_out.payload_sz = static_cast<uint32_t>(payload.size());
}

TEST(FuseUringMessage, AWriteBecomesTheDevFuseMessageWithoutMovingItsData) {
  EntryBuffers e(1 << 16);
  fuse_write_in write{};
  write.offset = 4096;
  write.size = 5;
  kernel_writes(e, FUSE_WRITE, 42, &write, sizeof write, "hello");
  RingMessage m;
  ASSERT_EQ(assemble_request(e.header, e.payload(), e.capacity(), &m), 0);
  EXPECT_EQ(m.size, sizeof(fuse_in_header) + sizeof(fuse_write_in) + 5);
  EXPECT_EQ(m.data + sizeof(fuse_in_header) + sizeof(fuse_write_in), e.payload());
  fuse_in_header in;
  std::memcpy(&in, m.data, sizeof in);
  EXPECT_EQ(in.opcode, uint32_t{FUSE_WRITE});
  EXPECT_EQ(in.unique, 42u);
  EXPECT_EQ(in.len, m.size);
  fuse_write_in copied;
  std::memcpy(&copied, m.data + sizeof in, sizeof copied);
  EXPECT_EQ(copied.offset, 4096u);
  EXPECT_EQ(copied.size, 5u);
  EXPECT_EQ(std::string(m.data + sizeof in + sizeof copied, 5), "hello");
}

TEST(FuseUringMessage, ARequestWithoutStructKeepsItsNamesRightAfterTheHeader) {
  EntryBuffers e(8192);
  kernel_writes(e, FUSE_LOOKUP, 9, nullptr, 0, std::string("name\0", 5));
  RingMessage m;
  ASSERT_EQ(assemble_request(e.header, e.payload(), e.capacity(), &m), 0);
  EXPECT_EQ(m.size, sizeof(fuse_in_header) + 5);
  EXPECT_STREQ(m.data + sizeof(fuse_in_header), "name");
}

TEST(FuseUringMessage, LengthsThatDoNotAddUpAreRefused) {
  EntryBuffers e(8192);
  fuse_read_in read{};
  kernel_writes(e, FUSE_READ, 3, &read, sizeof read, "");
  RingMessage m;
  // A struct larger than op_in.
  fuse_in_header in;
  std::memcpy(&in, e.header.in_out, sizeof in);
  in.len = sizeof in + 200;
  std::memcpy(e.header.in_out, &in, sizeof in);
  EXPECT_EQ(assemble_request(e.header, e.payload(), e.capacity(), &m), -EPROTO);
  // A payload longer than the whole request.
  in.len = sizeof in;
  std::memcpy(e.header.in_out, &in, sizeof in);
  e.header.ring_ent_in_out.payload_sz = 10;
  EXPECT_EQ(assemble_request(e.header, e.payload(), e.capacity(), &m), -EPROTO);
  // A payload larger than the buffer.
  in.len = sizeof in + 9000;
  std::memcpy(e.header.in_out, &in, sizeof in);
  e.header.ring_ent_in_out.payload_sz = 9000;
  EXPECT_EQ(assemble_request(e.header, e.payload(), e.capacity(), &m), -EPROTO);
}

TEST(FuseUringMessage, AReplyGoesToInOutAndItsArgumentsOneAfterTheOther) {
  EntryBuffers e(8192);
  fuse_out_header out{};
  out.len = sizeof out + 7;
  out.unique = 42;
  char a[3] = {'a', 'b', 'c'};
  char b[4] = {'d', 'e', 'f', 'g'};
  iovec iov[3] = {{&out, sizeof out}, {a, 3}, {b, 4}};
  EXPECT_EQ(pack_reply(iov, 3, &e.header, e.payload(), e.capacity()),
            static_cast<ssize_t>(sizeof out + 7));
  fuse_out_header written;
  std::memcpy(&written, e.header.in_out, sizeof written);
  EXPECT_EQ(written.unique, 42u);
  EXPECT_EQ(written.error, 0);
  EXPECT_EQ(e.header.ring_ent_in_out.payload_sz, 7u);
  EXPECT_EQ(std::string(e.payload(), 7), "abcdefg");
}

TEST(FuseUringMessage, AnErrorReplyHasNoPayload) {
  EntryBuffers e(8192);
  e.header.ring_ent_in_out.payload_sz = 99;  // left from the request
  fuse_out_header out{};
  out.len = sizeof out;
  out.error = -ENOENT;
  out.unique = 5;
  iovec iov[1] = {{&out, sizeof out}};
  EXPECT_EQ(pack_reply(iov, 1, &e.header, e.payload(), e.capacity()),
            static_cast<ssize_t>(sizeof out));
  fuse_out_header written;
  std::memcpy(&written, e.header.in_out, sizeof written);
  EXPECT_EQ(written.error, -ENOENT);
  EXPECT_EQ(e.header.ring_ent_in_out.payload_sz, 0u);
}

TEST(FuseUringMessage, AReplyTooLargeForTheEntryEndsTheRequestWithEio) {
  EntryBuffers e(16);
  fuse_out_header out{};
  out.len = sizeof out + 32;
  out.unique = 8;
  std::vector<char> data(32, 'x');
  iovec iov[2] = {{&out, sizeof out}, {data.data(), data.size()}};
  EXPECT_EQ(pack_reply(iov, 2, &e.header, e.payload(), e.capacity()), -E2BIG);
  fuse_out_header written;
  std::memcpy(&written, e.header.in_out, sizeof written);
  EXPECT_EQ(written.error, -EIO);
  EXPECT_EQ(written.unique, 8u);
  EXPECT_EQ(e.header.ring_ent_in_out.payload_sz, 0u);
  // Not an out header at all: refused, nothing written.
  iovec bad[1] = {{data.data(), 3}};
  EXPECT_EQ(pack_reply(bad, 1, &e.header, e.payload(), e.capacity()), -EINVAL);
}

using testing::init_request;

TEST(FuseUringMessage, TheOfferIsBit41OfAnExtendedInit) {
  bool is_init = false;
  uint64_t unique = 0;
  auto offered = init_request(2, FUSE_INIT_EXT, 1u << 9);
  EXPECT_TRUE(init_offers_uring(offered.data(), offered.size(), &is_init, &unique));
  EXPECT_TRUE(is_init);
  EXPECT_EQ(unique, 2u);
  auto plain = init_request(2, FUSE_INIT_EXT, 0);
  EXPECT_FALSE(init_offers_uring(plain.data(), plain.size(), &is_init, &unique));
  EXPECT_TRUE(is_init);
  // flags2 means nothing without FUSE_INIT_EXT.
  auto old = init_request(2, 0, 1u << 9);
  EXPECT_FALSE(init_offers_uring(old.data(), old.size(), &is_init, &unique));
  // Not an INIT.
  auto lookup = init_request(3, FUSE_INIT_EXT, 1u << 9);
  reinterpret_cast<fuse_in_header*>(lookup.data())->opcode = FUSE_LOOKUP;
  EXPECT_FALSE(init_offers_uring(lookup.data(), lookup.size(), &is_init, &unique));
  EXPECT_FALSE(is_init);
}

struct InitReply {
  fuse_out_header header{};
  fuse_init_out init{};
  iovec iov[2] = {{&header, sizeof header}, {&init, sizeof init}};
};

TEST(FuseUringMessage, TheReplyAsksForTheRingAndTheEntriesHoldTheLargestRequest) {
  InitReply r;
  r.init.flags = FUSE_ASYNC_READ | FUSE_MAX_PAGES;
  r.init.max_write = 1 << 20;
  r.init.max_pages = 256;
  EXPECT_EQ(ring_payload_bytes(r.iov, 2, 4096), size_t{1} << 20);
  ask_for_uring(r.iov, 2);
  EXPECT_EQ(r.init.flags, uint32_t{FUSE_ASYNC_READ | FUSE_MAX_PAGES | FUSE_INIT_EXT});
  EXPECT_EQ(r.init.flags2, 1u << 9);
  // Without FUSE_MAX_PAGES the kernel allows 32 pages; never less than 8 KiB; whole pages.
  InitReply small;
  small.init.max_write = 4096;
  EXPECT_EQ(ring_payload_bytes(small.iov, 2, 4096), size_t{32} * 4096);
  small.init.max_write = 200000;
  EXPECT_EQ(ring_payload_bytes(small.iov, 2, 4096), size_t{49} * 4096);
  // An error reply, or one too short for flags2, is no INIT to patch.
  InitReply failed;
  failed.header.error = -EPROTO;
  EXPECT_EQ(ring_payload_bytes(failed.iov, 2, 4096), 0u);
  InitReply old;
  old.iov[1].iov_len = 24;  // FUSE_COMPAT_22_INIT_OUT_SIZE
  EXPECT_EQ(ring_payload_bytes(old.iov, 2, 4096), 0u);
}

TEST(FuseUringMessage, OneQueuePerPossibleCpu) {
  EXPECT_EQ(possible_cpu_count("0-1\n"), 2u);
  EXPECT_EQ(possible_cpu_count("0"), 1u);
  EXPECT_EQ(possible_cpu_count("0,2-5"), 6u);
  EXPECT_EQ(possible_cpu_count(""), 0u);
  EXPECT_EQ(possible_cpu_count("zero"), 0u);
}

}  // namespace
}  // namespace diskcond::mount
