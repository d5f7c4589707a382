// FUSE over io_uring for libfuse 3.14, which has no support for it (libfuse 3.18 has): opt-in with
// DISKCOND_FUSE_URING=1 in the environment of `dmc start` (docs/conditioner.md "Transport").
//
// How (Documentation/filesystems/fuse-io-uring.rst): the session's custom /dev/fuse I/O
// (killpriv_v2.h) shows this object the kernel's INIT and libfuse's INIT reply. When the kernel
// offers FUSE_OVER_IO_URING (module parameter fuse.enable_uring=Y), one queue thread per possible
// CPU makes an io_uring (SQE128, single issuer) before the reply leaves; only if every ring could
// be made does the reply ask for the feature. Once the reply is written, each queue thread
// registers kEntriesPerQueue ring entries on the /dev/fuse descriptor (IORING_OP_URING_CMD,
// REGISTER), pinned to its CPU: the kernel sends a request to the queue of the CPU its caller runs
// on. A request arrives as a completion; the queue thread rebuilds the /dev/fuse message in place
// (fuse_uring_message.h) and hands it to fuse_session_process_buf, so every handler runs as it
// does on /dev/fuse. Its reply comes back through the custom I/O's writev: reply() packs it into
// the request's entry and COMMIT_AND_FETCH sends it and gives the entry back for the next request.
//
// Ownership: an entry belongs to the daemon from its completion until its reply is committed,
// however late: replies the ReplyScheduler sends later find the entry by the request's unique.
// Only the queue's own thread submits to its ring (single issuer): a reply made on it is queued
// on the ring at once and submitted with the thread's next wait; one made on another thread (the
// scheduler) goes to the queue's mailbox and wakes the thread through an eventfd.
//
// Fallback: not offered, a ring that cannot be made, or a REGISTER the kernel refuses: one line on
// stderr saying why, and requests keep coming through /dev/fuse (the kernel itself goes back to
// /dev/fuse when a REGISTER fails). Forgets, interrupts and notifications always use /dev/fuse, so
// libfuse's own session loop keeps running beside the queues.
//
// Limits of this prototype: handlers run on the queue thread, so at most one backing operation
// per CPU is in progress at a time; entries are never re-registered once the kernel dropped one.
#pragma once

#include <fuse_lowlevel.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace diskcond::mount {

class FuseUring {
 public:
  // Ring entries per queue: requests in flight on one CPU's queue (more wait in the kernel).
  static constexpr unsigned kEntriesPerQueue = 64;

  // `se`: the mounted session, whose /dev/fuse descriptor is `fuse_fd`. Starts nothing.
  FuseUring(fuse_session* se, int fuse_fd);
  ~FuseUring();  // stop()
  FuseUring(const FuseUring&) = delete;
  FuseUring& operator=(const FuseUring&) = delete;

  // The custom I/O's hooks (killpriv_v2.cc). saw_request: every message read from /dev/fuse.
  void saw_request(const void* message, size_t length);
  // Before libfuse's INIT reply is written: ask for the ring if the kernel offered it and the
  // queues' rings could be made. after_init_reply: once it was written (`written` is writev's
  // result): the queues register their entries. Both do nothing for any other reply.
  void before_init_reply(struct iovec* iov, int count);
  void after_init_reply(const struct iovec* iov, int count, ssize_t written);
  // A reply to a request that came through a ring entry: committed through that entry; returns
  // true and sets *result to what writev would have returned. False: not such a reply (the caller
  // writes it to /dev/fuse).
  bool reply(const struct iovec* iov, int count, ssize_t* result);

  // Ends the queue threads (after the session loop). Replies made later go to /dev/fuse.
  void stop();

  // Requests that came through the rings so far.
  uint64_t requests() const { return requests_.load(std::memory_order_relaxed); }

  struct Queue;  // one CPU's ring and thread (fuse_uring.cc)
  struct Entry;  // one ring entry's buffers

 private:
  void fall_back(const std::string& why);  // the one stderr line
  // Starts the queue threads, which make their rings; "" when every ring was made, else why not
  // (and the threads are ended).
  std::string start_queues(const struct iovec* iov, int count);
  void run_queue(Queue& q);
  bool make_ring(Queue& q);
  void on_request(Queue& q, Entry& e);
  void commit(Queue& q, Entry& e);
  void register_entry(Queue& q, Entry& e);

  fuse_session* const se_;
  const int fuse_fd_;
  // INIT, seen by the hooks: the kernel sends nothing else until the reply is written, so the
  // plain fields are written before init_seen_ / init_replied_ are set and read after.
  uint64_t init_unique_ = 0;
  bool offered_ = false;
  bool asked_ = false;
  size_t payload_bytes_ = 0;
  std::atomic<bool> init_seen_{false};
  std::atomic<bool> init_replied_{false};

  std::vector<std::unique_ptr<Queue>> queues_;
  // Start-up handshake between the INIT hooks and the queue threads.
  std::mutex start_mu_;
  std::condition_variable start_cv_;
  unsigned rings_made_ = 0;    // guarded by start_mu_
  unsigned rings_failed_ = 0;  // guarded by start_mu_
  std::string ring_error_;     // guarded by start_mu_
  bool go_ = false;            // guarded by start_mu_
  std::atomic<bool> stopping_{false};
  std::atomic<bool> running_{false};  // entries registered: replies may be ours
  std::atomic<bool> fell_back_{false};
  std::atomic<uint64_t> requests_{0};

  // The entry of each request in the daemon's hands, by its unique.
  std::mutex owned_mu_;
  std::unordered_map<uint64_t, Entry*> owned_;  // guarded by owned_mu_
};

}  // namespace diskcond::mount
