// The FUSE-over-io_uring part of the kernel's FUSE protocol, protocol 7.42 (Linux 6.14; unchanged
// up to the 6.18 kernel this was written against). The installed <linux/fuse.h> is 7.38 and has
// none of it, so the few definitions the daemon needs are written here from the kernel's uapi
// header and Documentation/filesystems/fuse-io-uring.rst, under names of our own so that a newer
// installed header cannot clash with them. The static_asserts pin the layout the kernel reads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace diskcond::mount::uring_abi {

// INIT flag (bit 41: bit 9 of fuse_init_in/out.flags2, valid only with FUSE_INIT_EXT): the kernel
// offers FUSE over io_uring (module parameter fuse.enable_uring=Y); the daemon's INIT reply asks
// for it. Once asked, the kernel holds new requests until every queue has a registered entry.
constexpr uint64_t kOverIoUring = uint64_t{1} << 41;
constexpr uint32_t kOverIoUringFlags2 = static_cast<uint32_t>(kOverIoUring >> 32);

// The kernel's ring payload must hold max(FUSE_MIN_READ_BUFFER, max_write, max_pages * page).
constexpr size_t kMinReadBuffer = 8192;
constexpr uint32_t kDefaultMaxPages = 32;  // FUSE_DEFAULT_MAX_PAGES_PER_REQ, without FUSE_MAX_PAGES

// IORING_OP_URING_CMD sub-commands on the /dev/fuse descriptor (sqe->cmd_op).
enum Command : uint32_t {
  kRegister = 1,        // FUSE_IO_URING_CMD_REGISTER: hand the kernel one ring entry
  kCommitAndFetch = 2,  // FUSE_IO_URING_CMD_COMMIT_AND_FETCH: reply, and wait for the next request
};

// struct fuse_uring_ent_in_out: the end of an entry's header buffer.
struct EntryInOut {
  uint64_t flags;
  uint64_t commit_id;   // the request's unique, to echo in CommandRequest::commit_id
  uint32_t payload_sz;  // bytes of the payload buffer in use, either way
  uint32_t padding;
  uint64_t reserved;
};

constexpr size_t kInOutHeaderBytes = 128;  // FUSE_URING_IN_OUT_HEADER_SZ
constexpr size_t kOpInBytes = 128;         // FUSE_URING_OP_IN_OUT_SZ

// struct fuse_uring_req_header: iov[0] of a registered entry.
struct RequestHeader {
  char in_out[kInOutHeaderBytes];  // fuse_in_header from the kernel; fuse_out_header back
  char op_in[kOpInBytes];          // the request's first argument (its per-opcode struct)
  EntryInOut ring_ent_in_out;
};

// struct fuse_uring_cmd_req: in the 80-byte command area of a 128-byte SQE.
struct CommandRequest {
  uint64_t flags;
  uint64_t commit_id;
  uint16_t qid;  // the queue: one per possible CPU
  uint8_t padding[6];
};

static_assert(sizeof(EntryInOut) == 32);
static_assert(sizeof(RequestHeader) == 288);
static_assert(offsetof(RequestHeader, ring_ent_in_out) == 256);
static_assert(sizeof(CommandRequest) == 24);

}  // namespace diskcond::mount::uring_abi
