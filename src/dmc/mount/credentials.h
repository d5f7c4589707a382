// Runs a FUSE request with its caller's credentials, on the current thread only.
//
// The daemon runs as root and serves everyone (allow_other). While a CallerCredentials is alive,
// the calling worker thread has the caller's fsuid, fsgid and supplementary groups, and - for a
// caller other than root - no effective capabilities, so the backing filesystem applies exactly
// the permission checks it would apply to the caller (ownership of new files included).
// Per thread by construction: setfsuid/setfsgid and capset act on the calling thread; groups are
// set with the raw SYS_setgroups system call because glibc's setgroups() changes every thread.
//
// A daemon that is not root (`dmc run` by an ordinary user: the daemon runs as that user, with
// capabilities only in its own user namespace) serves its own user alone: a request from any
// other uid fails with EACCES, and a request from its user runs with no effective capabilities,
// so the user's own rights apply and nothing more (setgroups and setfsuid are neither possible
// there nor needed).
#pragma once

#include <fuse_lowlevel.h>
#include <sys/types.h>

#include <cstdint>

namespace diskcond::mount {

class CallerCredentials {
 public:
  explicit CallerCredentials(fuse_req_t req);
  ~CallerCredentials();  // back to root with every capability of the permitted set
  CallerCredentials(const CallerCredentials&) = delete;
  CallerCredentials& operator=(const CallerCredentials&) = delete;

  // 0 when the switch worked; else -errno and the request must be refused with it.
  int error() const { return error_; }

 private:
  int error_ = 0;
  bool switched_ = false;  // ids and groups switched (a non-root caller of a root daemon)
  bool caps_dropped_ = false;
};

// Drops the calling thread's effective capabilities while alive when `uid` is not root. Used for
// I/O on an already open file, where only capability-dependent rules remain (a write by a
// non-root caller must clear setuid bits like on the backing filesystem).
class CapabilityDrop {
 public:
  explicit CapabilityDrop(uid_t uid);
  ~CapabilityDrop();
  CapabilityDrop(const CapabilityDrop&) = delete;
  CapabilityDrop& operator=(const CapabilityDrop&) = delete;

 private:
  bool dropped_ = false;
};

// Daemon start-up: clears the process's supplementary groups and umask so that per-request
// switches start from a known state (a daemon that is not root only clears its umask: its
// groups are its user's, and its user namespace forbids setgroups). Returns 0 or -errno.
int reset_process_credentials();

}  // namespace diskcond::mount
