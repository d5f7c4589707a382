// FUSE_HANDLE_KILLPRIV_V2 for libfuse 3.14, which cannot ask for it. Without it the kernel sends a
// getxattr("security.capability") before every write to a file (925 of the 4,817 requests of a
// 300-file untar, docs/apps.md) to learn whether the write must remove privileges. With it the
// kernel leaves that to the file system - and the daemon already gets it from the backing file
// system: it writes, truncates and chowns as the caller, without CAP_FSETID for a non-root caller
// (credentials.h), so the backing kernel clears setuid/setgid bits and security.capability itself,
// exactly as it would for the caller. (The kernel's own flags for it, FUSE_WRITE_KILL_SUIDGID and
// FATTR_KILL_SUIDGID, never reach the daemon: libfuse 3.14 drops them.)
//
// How: the session's /dev/fuse hooks (session_io.h) show it every message: it notes whether the
// kernel's INIT offers KILLPRIV_V2 and adds the flag to the INIT reply when it does. Every other
// message passes untouched; after INIT the cost is one relaxed atomic load per message.
#pragma once

#include <fuse_lowlevel.h>

#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace diskcond::mount {

class KillprivV2 {
 public:
  // The hooks pass INIT untouched (DISKCOND_KILLPRIV_V2=off, when they are installed for FUSE
  // over io_uring alone). REQUIRES: before the session loop starts.
  void never_ask();

  // Whether the kernel offered KILLPRIV_V2 and the INIT reply asked for it (after INIT).
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  // The hooks' work, for tests: note an incoming message; patch an outgoing one. Both take the
  // whole message (header and body).
  void saw_request(const void* message, size_t length);
  void patch_reply(struct iovec* iov, int count);

 private:
  std::atomic<bool> init_done_{false};
  std::atomic<bool> offered_{false};
  std::atomic<bool> enabled_{false};
  uint64_t init_unique_ = 0;
};

}  // namespace diskcond::mount
