#include "dmc/mount/credentials.h"

#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace diskcond::mount {
namespace {

constexpr int kInlineGroups = 64;

int raw_setgroups(size_t n, const gid_t* groups) {
  return syscall(SYS_setgroups, n, groups) < 0 ? -errno : 0;
}

// setfsuid/setfsgid report no errors; reading the value back with -1 tells whether it took.
int set_fs_ids(uid_t uid, gid_t gid) {
  syscall(SYS_setfsgid, gid);
  if (static_cast<gid_t>(syscall(SYS_setfsgid, -1)) != gid) return -EPERM;
  syscall(SYS_setfsuid, uid);
  if (static_cast<uid_t>(syscall(SYS_setfsuid, -1)) != uid) return -EPERM;
  return 0;
}

// Back to root's file system ids. Nothing acts on whether it took (the destructor cannot refuse
// anything), so unlike set_fs_ids it reads nothing back: two system calls instead of four.
void restore_fs_ids() {
  syscall(SYS_setfsgid, 0);
  syscall(SYS_setfsuid, 0);
}

// The calling thread's capability sets as it started (effective, permitted, inheritable), read
// once per thread: only effective sets are ever switched here and nothing in the daemon changes
// a permitted or inheritable set, so the capget that every drop and every restore made returned
// this each time. Should something ever shrink a permitted set, capset with these values fails
// (EPERM: a permitted set cannot grow), and the drop refuses its request, as a failed capget did.
struct ThreadCaps {
  __user_cap_data_struct data[2] = {};
  int error = 0;  // -errno of the capget
};
const ThreadCaps& thread_caps() {
  thread_local const ThreadCaps caps = [] {
    ThreadCaps c;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    if (syscall(SYS_capget, &header, c.data) < 0) c.error = -errno;
    return c;
  }();
  return caps;
}

// Sets this thread's effective capabilities to empty (drop) or to its permitted set (restore).
int set_effective_caps(bool empty) {
  const ThreadCaps& caps = thread_caps();
  if (caps.error != 0) return caps.error;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {caps.data[0], caps.data[1]};
  for (auto& d : data) d.effective = empty ? 0 : d.permitted;
  return syscall(SYS_capset, &header, data) < 0 ? -errno : 0;
}

// The daemon's own uid when it is not root (see credentials.h), else 0. Fixed for the process.
uid_t non_root_daemon_uid() {
  static const uid_t uid = geteuid();
  return uid;
}

}  // namespace

CallerCredentials::CallerCredentials(fuse_req_t req) {
  const fuse_ctx* ctx = fuse_req_ctx(req);
  if (const uid_t own = non_root_daemon_uid(); own != 0) {
    if (ctx->uid != own) {
      error_ = -EACCES;
      return;
    }
    error_ = set_effective_caps(true);
    caps_dropped_ = error_ == 0;
    return;
  }
  // The daemon's own credentials already are root's: uid and gid 0, every capability, and no
  // supplementary groups, which cannot change a result for a caller with CAP_DAC_OVERRIDE,
  // CAP_FOWNER and CAP_CHOWN. Skipping the switch saves about a dozen system calls and a read of
  // /proc per namespace change (unlinks by root: 1.2-1.9x as many per second, metadata_rate).
  if (ctx->uid == 0 && ctx->gid == 0) return;
  switched_ = true;
  gid_t inline_groups[kInlineGroups];
  std::vector<gid_t> more;
  const gid_t* groups = inline_groups;
  int n = fuse_req_getgroups(req, kInlineGroups, inline_groups);
  if (n > kInlineGroups) {
    more.resize(static_cast<size_t>(n));
    n = fuse_req_getgroups(req, n, more.data());
    groups = more.data();
  }
  // Unknown groups (the caller exited, /proc unreadable): fail closed with none.
  if (n < 0 || n > static_cast<int>(std::max<size_t>(more.size(), kInlineGroups))) n = 0;
  if ((error_ = raw_setgroups(static_cast<size_t>(n), groups)) != 0) return;
  if ((error_ = set_fs_ids(ctx->uid, ctx->gid)) != 0) return;
  if (ctx->uid != 0) {
    error_ = set_effective_caps(true);
    caps_dropped_ = error_ == 0;
  }
}

CallerCredentials::~CallerCredentials() {
  if (caps_dropped_) set_effective_caps(false);
  if (!switched_) return;
  restore_fs_ids();
  raw_setgroups(0, nullptr);
}

CapabilityDrop::CapabilityDrop(uid_t uid) {
  if (uid != 0) dropped_ = set_effective_caps(true) == 0;
}

CapabilityDrop::~CapabilityDrop() {
  if (dropped_) set_effective_caps(false);
}

int reset_process_credentials() {
  umask(0);
  if (non_root_daemon_uid() != 0) return 0;
  return raw_setgroups(0, nullptr);
}

}  // namespace diskcond::mount
