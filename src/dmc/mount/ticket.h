// One conditioned FUSE request from its arrival to its reply: what Conditioner::begin() (or
// begin_metadata()) hands a handler, what the model commands the request waits for are charged
// to, and what Conditioner::finish() takes back with the reply.
//
// A ticket carries everything finish() needs: the arrival (taken by begin), the latest model
// completion of the commands charged to it, the request's op, length and kind. A handler cannot
// repeat them to finish(), so it cannot contradict them either.
//
// Every ticket is finished exactly once. [[nodiscard]] and move-only; finish() takes it by value,
// which leaves the handler's copy empty. A ticket destroyed unfinished (a handler that forgot its
// reply: the caller would hang), an empty ticket finished again or charged, and a ticket finished
// by another conditioner than its own are bugs: each fails an assert in debug builds and is
// counted in Conditioner::ticket_misuses() (which the tests expect to stay 0).
#pragma once

#include <cstdint>

#include "core/disk_model.h"
#include "dmc/mount/request_arrival.h"

namespace diskcond::mount {

class Conditioner;

// What a request is; it decides how finish() times the reply.
enum class RequestKind : uint8_t {
  // A read or write of file data (Op::kRead or kWrite, `length` bytes asked). The transit lead
  // applies, and 4 KiB ones (kFloorBytes) feed the mount's floor. Always conditioned, even when
  // nothing was charged (a read of a hole has no device piece but is timed and counted).
  kData,
  // Metadata: the reads of a lookup or listing, a change (create, setattr ...). Conditioned only
  // once a model command is charged to it (a lookup the kernel's inode is cached for is free).
  kMetadata,
  // flush (close), fsync and fsyncdir: Op::kFlush. Conditioned only once a model command is
  // charged to it (a close in write-back mode does not wait).
  kFlush,
};

class [[nodiscard]] Ticket {
 public:
  Ticket(Ticket&& other) noexcept;
  Ticket& operator=(Ticket&&) = delete;
  Ticket(const Ticket&) = delete;
  Ticket& operator=(const Ticket&) = delete;
  ~Ticket();  // REQUIRES: finished (or moved from); see above

  int64_t arrival_ns() const { return arrival_ns_; }
  // The latest completion of the model commands charged so far; the arrival when none was.
  int64_t completion_ns() const { return completion_ns_; }
  // kRead/kWrite for data; for metadata, kWrite once a change was charged, else kRead; kFlush.
  Op op() const { return op_; }
  // Bytes asked (data), kMetadataWriteBytes (a metadata change), else 0.
  uint64_t length() const { return length_; }
  RequestKind kind() const { return kind_; }
  // Whether finish() waits for the model and counts the reply (see RequestKind).
  bool conditioned() const { return conditioned_; }
  // False once finished or moved from.
  bool live() const { return owner_ != nullptr; }

 private:
  friend class Conditioner;
  Ticket(Conditioner* owner, Arrival arrival, Op op, uint64_t length, RequestKind kind);
  // One more model command the reply waits for, complete at `completion_ns`.
  void charge(int64_t completion_ns);

  Conditioner* owner_;  // null once finished or moved from
  int64_t arrival_ns_;
  int64_t completion_ns_;
  uint64_t length_;
  Op op_;
  RequestKind kind_;
  bool conditioned_;
  bool device_ = false;  // a device command or an fsync was charged (finish: a stall holds it)
  bool kernel_sent_;  // the arrival is the kernel's send (request_arrival.h), not a worker's read
  uint64_t unique_;   // the request, until it has reached the model (send_order.h); 0 then
};

}  // namespace diskcond::mount
