// A crashable mount's side of power loss (`dmc start -crashable`, `dmc crash`): saves the bytes
// a buffered write replaces before the backing write and records the files it creates, in the
// undo log (core/undo_log.h) the write-back model tells about durability; on a crash, puts back
// what the pretend disk would not have held (core/crash_plan.h).
//
// Contracts:
//  - Without a CrashRecorder (a mount started without -crashable) nothing of this runs.
//  - Every write still reaches the backing file before its reply, so a daemon killed by SIGKILL
//    loses no acknowledged write; only crash() takes anything back.
//  - The daemon writes pre-images back through descriptors of the inodes the requests wrote to
//    (reopened from the caller's own descriptor through /proc/self/fd) and removes created
//    entries relative to a descriptor of their parent directory, after checking the name still
//    is the inode it created: no path is resolved, so no symlink swapped in is followed.
//  - What is not undone (the file's state at the crash is kept): truncates and size changes,
//    fallocate, writes the model waits for (O_DIRECT, write-through and no-cache modes), links,
//    unlinks, renames, rmdir, attributes, xattrs. keep() marks a file so.
//
// Thread-safe: one mutex around the descriptor tables and each write's pre-image read (so a
// pruned descriptor is never read from), taken before the undo log's.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/crash_plan.h"
#include "core/undo_log.h"
#include "dmc/mount/mount_control.h"

namespace diskcond::mount {

class CrashRecorder {
 public:
  // `limit_bytes`: over_limit() past it (the write-back model's dirty limit).
  explicit CrashRecorder(uint64_t limit_bytes);
  ~CrashRecorder();  // closes the descriptors
  CrashRecorder(const CrashRecorder&) = delete;
  CrashRecorder& operator=(const CrashRecorder&) = delete;

  // What the write-back model tells (Conditioner::set_durability_listener).
  UndoLog& log() { return log_; }

  // Before a buffered write of `length` bytes at `offset` to the file `file` (writeback id),
  // open as `fd`, of `size` bytes, arriving at `now`: saves the bytes it replaces (and forgets
  // what became durable, every kPruneIntervalNs). Returns the token to charge the write with, or
  // 0 when the file cannot be recorded (then it is kept: keep()).
  uint64_t before_write(uint64_t file, int fd, uint64_t offset, uint64_t length, uint64_t size,
                        int64_t now);
  static constexpr int64_t kPruneIntervalNs = 100'000'000;
  // The file's state now survives a crash (a change this log does not undo).
  void keep(uint64_t file);
  // After `name` was created in the directory `dir_fd` (any descriptor of it, O_PATH is fine) as
  // the inode (dev, ino): returns the token to journal the creation with, or 0.
  uint64_t after_create(int dir_fd, const std::string& name, dev_t dev, ino_t ino, bool directory);
  // More pre-image bytes than the limit: the caller makes everything durable (Conditioner::sync).
  bool over_limit() const { return log_.bytes() > limit_bytes_; }
  uint64_t limit_bytes() const { return limit_bytes_; }
  // Forgets what is durable by `now` and closes the descriptors no longer needed.
  void prune(int64_t now);

  // The power cut at `now`. REQUIRES: no request runs any more (the FUSE session has ended).
  CrashReport crash(int64_t now, Tear tear, uint64_t seed);

 private:
  struct Created {
    int dir_fd;
    std::string name;
    dev_t dev;
    ino_t ino;
    bool directory;
  };
  void prune_locked(int64_t now);
  void restore_file(const FileRestore& r, CrashReport& report);
  void remove_entry(const Created& c, CrashReport& report);

  const uint64_t limit_bytes_;
  UndoLog log_;
  std::mutex mu_;
  std::map<uint64_t, int> files_;        // writeback id -> O_RDWR descriptor (the daemon's)
  std::map<uint64_t, Created> created_;  // entry number -> where it was created
  uint64_t next_entry_ = 1;
  int64_t last_prune_ns_ = INT64_MIN;
};

}  // namespace diskcond::mount
