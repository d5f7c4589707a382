// The pure half of FUSE over io_uring (fuse_uring.h): turning a ring entry into the message
// libfuse 3.14 parses, a libfuse reply into a ring entry, and the INIT negotiation. No
// descriptors, no threads: the unit tests drive it with plain buffers.
//
// A ring entry is two buffers (fuse_uring_abi.h): a header buffer with the request's
// fuse_in_header (in_out), its first argument, the per-opcode struct (op_in), and the entry's
// in/out fields; and a payload buffer with the other arguments (names, write data, extensions).
// /dev/fuse delivers the same request as one message: header, struct, other arguments. The entry's
// payload buffer is allocated with kMessagePrefixBytes in front of it, and assemble_request copies
// the header and the struct there, just before the payload, so that the message is contiguous
// without copying the payload.
#pragma once

#include <linux/fuse.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dmc/mount/fuse_uring_abi.h"

namespace diskcond::mount {

// Writable bytes every entry's payload buffer has in front of it (a page, so that the payload
// itself stays page-aligned).
constexpr size_t kMessagePrefixBytes = 4096;
static_assert(kMessagePrefixBytes >= sizeof(fuse_in_header) + uring_abi::kOpInBytes);

struct RingMessage {
  char* data = nullptr;
  size_t size = 0;
};

// The /dev/fuse form of the request in `header` and `payload`. The per-opcode struct's size is
// what the kernel's fuse_in_header.len leaves after the header and the payload it wrote
// (ring_ent_in_out.payload_sz). REQUIRES: `payload` has kMessagePrefixBytes writable bytes in
// front of it and `capacity` after it. Returns 0, or -EPROTO when the lengths do not add up (the
// struct would be larger than op_in, the payload larger than the buffer).
int assemble_request(const uring_abi::RequestHeader& header, char* payload, size_t capacity,
                     RingMessage* out);

// Puts libfuse's reply (iov[0]: fuse_out_header; the rest: its arguments) into the entry: the
// header into in_out, the arguments one after the other into `payload`, their length into
// payload_sz. Returns the reply's length (what writev would have written), or -E2BIG when the
// arguments do not fit in `capacity` (the entry then carries an EIO error reply instead, so that
// the request still ends) or -EINVAL when iov[0] is no out header (the entry is left as it was).
ssize_t pack_reply(const struct iovec* iov, int count, uring_abi::RequestHeader* header,
                   char* payload, size_t capacity);

// Whether `message` (what a /dev/fuse read returned) is the kernel's INIT and offers FUSE over
// io_uring. Sets *is_init and, for an INIT, *unique.
bool init_offers_uring(const void* message, size_t length, bool* is_init, uint64_t* unique);

// The payload bytes each entry needs for the connection libfuse's INIT reply (iov[1]:
// fuse_init_out) sets up: max(FUSE_MIN_READ_BUFFER, max_write, max_pages pages), whole pages.
// 0 when iov is no successful INIT reply long enough to carry flags2.
size_t ring_payload_bytes(const struct iovec* iov, int count, size_t page_bytes);

// Asks for FUSE over io_uring in libfuse's INIT reply (FUSE_INIT_EXT and the flags2 bit).
// REQUIRES: ring_payload_bytes(iov, count, ...) > 0.
void ask_for_uring(struct iovec* iov, int count);

// How many queues the kernel wants: one per possible CPU, from a CPU list such as
// /sys/devices/system/cpu/possible ("0-1", "0,2-5"): the highest CPU number plus one. 0 when the
// list cannot be read.
unsigned possible_cpu_count(std::string_view list);

}  // namespace diskcond::mount
