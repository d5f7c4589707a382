// When the kernel sent each FUSE request (issue 18 item 1): a request's true arrival.
//
// The model's clock for a request used to start when a worker's read of /dev/fuse returned it
// (request_arrival.h). Between the caller's send and that return lie the wake-up of a worker
// (which waits for a CPU when both are busy) and, for a write, the copy of its data: time the
// caller waits but the model did not count, so the mount was slower than its profile by a
// varying amount the transit lead could not take back (it may only take the smallest round trip).
//
// A BPF program (bpf/send_stamp.bpf.c) on the kernel's tracepoint fuse_request_send, in the
// sending task's context, writes the time of each of this mount's requests into slot
// (unique >> 1) % kSlots of an array the daemon maps: first the time, then the request's `unique`
// (the kernel numbers requests in steps of 2). The daemon looks a request up by its `unique`
// after reading it (session_io.cc) and takes the time only if the slot names that request before
// and after the time is read; otherwise (a slot reused by kSlots later requests, a request sent
// before the program was attached) the worker's read stays the arrival.
//
// Never earlier than the truth: the tracepoint runs inside the caller's system call, after it
// started, so an arrival stamped there is still no earlier than the caller's own start.
//
// Root only (loading a tracing program needs CAP_BPF and CAP_PERFMON), and a kernel with BTF and
// the tracepoint (recent kernels; 6.18 here); without them the mount keeps the worker's read (the
// daemon logs why, except for a lack of permission). DISKCOND_KERNEL_ARRIVAL=off in the environment
// of `dmc start` leaves it off, to measure what it changes.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"

struct bpf_link;
struct bpf_object;

namespace diskcond::mount {

// One slot of the program's array; the layout is the program's struct send_stamp.
struct SendStampSlot {
  std::atomic<uint64_t> unique;   // the request whose time sent_ns is; 0: none yet
  std::atomic<uint64_t> sent_ns;  // CLOCK_MONOTONIC when the kernel sent it
  std::atomic<uint32_t> opcode;   // its FUSE opcode (FUSE_READ ...)
  std::atomic<uint32_t> cpu;      // the CPU its caller sent it from
};
static_assert(sizeof(SendStampSlot) == 24);

// What a slot says of one request.
struct SentRequest {
  int64_t sent_ns = 0;  // CLOCK_MONOTONIC; 0: not known (see SendStampTable::sent)
  uint32_t opcode = 0;
  int cpu = -1;  // the CPU its caller sent it from (and, most likely, sleeps on); -1: not known
};

// Looks requests up in the slots the program writes (or a test's array).
class SendStampTable {
 public:
  static constexpr uint32_t kSlots = 4096;  // the program's SLOTS

  // `slots`: kSlots slots that outlive this table.
  explicit SendStampTable(const SendStampSlot* slots) : slots_(slots) {}

  static uint32_t slot_of(uint64_t unique) { return static_cast<uint32_t>(unique >> 1) % kSlots; }
  // When the kernel sent request `unique` (CLOCK_MONOTONIC, ns), its opcode and its caller's CPU,
  // or {0, 0, -1} when its slot names another request (or none) before or after they are read.
  SentRequest sent(uint64_t unique) const;
  int64_t sent_ns(uint64_t unique) const { return sent(unique).sent_ns; }

 private:
  const SendStampSlot* slots_;
};

// How requests' arrivals were taken since the mount started (status -json: kernel_arrivals,
// kernel_arrival_misses, handover_total_ns).
struct ArrivalCounts {
  std::atomic<uint64_t> stamped{0};           // arrived at the kernel's send
  std::atomic<uint64_t> missed{0};            // looked up in vain: arrived at the worker's read
  std::atomic<int64_t> handover_total_ns{0};  // send to the worker's read, over the stamped ones
};

class KernelSendStamps {
 public:
  // Loads the program for the FUSE connection whose device is `mount_dev` (a stat's st_dev of
  // the mount) and attaches it. An error says why (not root, no BTF, no tracepoint), and errno
  // is then its code (EPERM: this process may not load such a program).
  static Result<std::unique_ptr<KernelSendStamps>> attach(dev_t mount_dev);
  ~KernelSendStamps();
  KernelSendStamps(const KernelSendStamps&) = delete;
  KernelSendStamps& operator=(const KernelSendStamps&) = delete;

  const SendStampTable& table() const { return table_; }

 private:
  KernelSendStamps(bpf_object* object, bpf_link* link, void* slots);

  bpf_object* object_;
  bpf_link* link_;
  void* slots_;  // the array, mapped read-only
  SendStampTable table_;
};

// The kernel's send stamps for the FUSE connection mounted on `mount_point`, or null: the daemon's
// log (stderr) gets one line saying why, unless this process may not load the program (a daemon
// that is not root), whose requests then arrive at the workers' reads as they should. The
// connection's device is read from the mount's superblock without asking the daemon, which does
// not serve yet (AT_STATX_DONT_SYNC: no getattr).
std::unique_ptr<KernelSendStamps> attach_send_stamps(const std::string& mount_point);

}  // namespace diskcond::mount
