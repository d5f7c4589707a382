#include "dmc/mount/fuse_uring_message.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace diskcond::mount {

using uring_abi::RequestHeader;

int assemble_request(const RequestHeader& header, char* payload, size_t capacity,
                     RingMessage* out) {
  fuse_in_header in;
  std::memcpy(&in, header.in_out, sizeof in);
  const size_t payload_bytes = header.ring_ent_in_out.payload_sz;
  if (payload_bytes > capacity || in.len < sizeof in + payload_bytes) return -EPROTO;
  const size_t struct_bytes = in.len - sizeof in - payload_bytes;
  if (struct_bytes > sizeof header.op_in) return -EPROTO;
  char* start = payload - struct_bytes - sizeof in;
  std::memcpy(start, &in, sizeof in);
  std::memcpy(start + sizeof in, header.op_in, struct_bytes);
  out->data = start;
  out->size = in.len;
  return 0;
}

ssize_t pack_reply(const struct iovec* iov, int count, RequestHeader* header, char* payload,
                   size_t capacity) {
  if (count < 1 || iov[0].iov_len != sizeof(fuse_out_header)) return -EINVAL;
  fuse_out_header out;
  std::memcpy(&out, iov[0].iov_base, sizeof out);
  size_t used = 0;
  for (int i = 1; i < count; ++i) used += iov[i].iov_len;
  const ssize_t length = static_cast<ssize_t>(sizeof out + used);
  if (used > capacity) {
    out.len = sizeof out;
    out.error = -EIO;
    std::memcpy(header->in_out, &out, sizeof out);
    header->ring_ent_in_out.payload_sz = 0;
    return -E2BIG;
  }
  size_t at = 0;
  for (int i = 1; i < count; ++i) {
    if (iov[i].iov_len > 0) std::memcpy(payload + at, iov[i].iov_base, iov[i].iov_len);
    at += iov[i].iov_len;
  }
  std::memcpy(header->in_out, &out, sizeof out);
  header->ring_ent_in_out.payload_sz = static_cast<uint32_t>(used);
  return length;
}

bool init_offers_uring(const void* message, size_t length, bool* is_init, uint64_t* unique) {
  *is_init = false;
  if (length < sizeof(fuse_in_header) + sizeof(fuse_init_in)) return false;
  fuse_in_header in;
  std::memcpy(&in, message, sizeof in);
  if (in.opcode != FUSE_INIT) return false;
  *is_init = true;
  *unique = in.unique;
  fuse_init_in init;
  std::memcpy(&init, static_cast<const char*>(message) + sizeof in, sizeof init);
  return (init.flags & FUSE_INIT_EXT) != 0 && (init.flags2 & uring_abi::kOverIoUringFlags2) != 0;
}

namespace {

constexpr size_t kFlags2End = offsetof(fuse_init_out, flags2) + sizeof(uint32_t);

bool is_init_reply(const struct iovec* iov, int count) {
  if (count < 2 || iov[0].iov_len != sizeof(fuse_out_header) || iov[1].iov_len < kFlags2End)
    return false;
  fuse_out_header out;
  std::memcpy(&out, iov[0].iov_base, sizeof out);
  return out.error == 0;
}

}  // namespace

size_t ring_payload_bytes(const struct iovec* iov, int count, size_t page_bytes) {
  if (!is_init_reply(iov, count) || page_bytes == 0) return 0;
  fuse_init_out init{};
  std::memcpy(&init, iov[1].iov_base, std::min(iov[1].iov_len, sizeof init));
  const size_t pages = init.flags & FUSE_MAX_PAGES ? init.max_pages : uring_abi::kDefaultMaxPages;
  size_t bytes = std::max({uring_abi::kMinReadBuffer, size_t{init.max_write}, pages * page_bytes});
  return (bytes + page_bytes - 1) / page_bytes * page_bytes;
}

void ask_for_uring(struct iovec* iov, int count) {
  (void)count;
  auto* init = static_cast<fuse_init_out*>(iov[1].iov_base);
  init->flags |= FUSE_INIT_EXT;
  init->flags2 |= uring_abi::kOverIoUringFlags2;
}

unsigned possible_cpu_count(std::string_view list) {
  unsigned highest = 0;
  bool any = false;
  size_t i = 0;
  while (i < list.size()) {
    const char c = list[i];
    if (c >= '0' && c <= '9') {
      unsigned value = 0;
      auto [end, ec] = std::from_chars(list.data() + i, list.data() + list.size(), value);
      if (ec != std::errc()) return 0;
      highest = std::max(highest, value);
      any = true;
      i = static_cast<size_t>(end - list.data());
    } else if (c == '-' || c == ',' || c == '\n' || c == ' ') {
      ++i;
    } else {
      return 0;
    }
  }
  return any ? highest + 1 : 0;
}

}  // namespace diskcond::mount
