// A crashable mount's side of power loss (`dmc start -crashable`, `dmc crash`): saves the bytes
// a buffered write replaces before the backing write and records the namespace changes (entries
// created, renamed, removed), in the undo log (core/undo_log.h) the write-back model tells about
// durability; on a crash, puts back what the pretend disk would not have held
// (core/crash_plan.h).
//
// Contracts:
//  - Without a CrashRecorder (a mount started without -crashable) nothing of this runs.
//  - Every write still reaches the backing file before its reply, so a daemon killed by SIGKILL
//    loses no acknowledged write; only crash() takes anything back.
//  - The daemon writes pre-images back through descriptors of the inodes the requests wrote to
//    (reopened from the caller's own descriptor through /proc/self/fd) and undoes namespace
//    changes relative to descriptors of the directories involved, after checking each name still
//    is the inode the change left there (or still is free): no path is resolved, so no symlink
//    swapped in is followed. The inodes created or renamed are held (O_PATH) until the change is
//    durable, so that their numbers are not reused by another file meanwhile.
//  - Undoing a creation (create, mknod, mkdir, symlink, link) removes the name; a rename (not
//    RENAME_EXCHANGE) renames back and brings back the entry it replaced; an unlink or rmdir
//    brings the entry back. A removed or replaced entry is kept alive by an O_PATH descriptor until
//    its removal is durable; bringing it back links that inode again while it has another name,
//    else recreates it (a file's bytes copied, a directory empty, a symlink, a node) with its
//    mode, owner and times, under a new inode number.
//  - What is not undone (the state at the crash is kept): truncates and size changes, fallocate,
//    writes the model waits for (O_DIRECT, write-through and no-cache modes), RENAME_EXCHANGE,
//    attributes, xattrs. keep() marks a file so.
//
// Thread-safe: one mutex around the descriptor tables and each write's pre-image read (so a
// pruned descriptor is never read from), taken before the undo log's.
#pragma once

#include <sys/stat.h>
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
  // Namespace changes, each at `now` (which also forgets what became durable, as before_write):
  // After `name` was created in the directory `dir_fd` (any descriptor of it, O_PATH is fine) as
  // the inode (dev, ino): returns the token to journal the creation with, or 0.
  uint64_t after_create(int dir_fd, const std::string& name, dev_t dev, ino_t ino, bool directory,
                        int64_t now);
  // Before `name` in `dir_fd` is removed (unlink, rmdir): returns the token to journal the
  // removal with, or 0 (nothing there).
  uint64_t before_remove(int dir_fd, const std::string& name, int64_t now);
  // Before `name` in `from_fd` is renamed to `to_name` in `to_fd` (no flags or
  // RENAME_NOREPLACE): returns the token to journal the rename with, or 0.
  uint64_t before_rename(int from_fd, const std::string& name, int to_fd,
                         const std::string& to_name, int64_t now);
  // More pre-image bytes than the limit: the caller makes everything durable (Conditioner::sync).
  bool over_limit() const { return log_.bytes() > limit_bytes_; }
  uint64_t limit_bytes() const { return limit_bytes_; }
  // Forgets what is durable by `now` and closes the descriptors no longer needed.
  void prune(int64_t now);

  // The power cut at `now`. REQUIRES: no request runs any more (the FUSE session has ended).
  CrashReport crash(int64_t now, Tear tear, uint64_t seed);

 private:
  // An entry a change removed or replaced, kept alive to be brought back (see above).
  struct Victim {
    int fd = -1;  // O_PATH|O_NOFOLLOW; -1: none
    struct stat st {};
    std::string link_target;  // a symlink's
  };
  // A namespace change to undo: `name` in `dir_fd` ...
  struct Change {
    enum Kind { kCreated, kRenamed, kRemoved } kind;
    int dir_fd = -1;
    std::string name;
    dev_t dev = 0;  // kCreated: the inode created; kRenamed: the inode renamed
    ino_t ino = 0;
    int inode_fd = -1;       // ... held (O_PATH), so that its number is not reused meanwhile
    bool directory = false;  // kCreated
    int to_fd = -1;          // kRenamed: ... went to `to_name` in `to_fd`
    std::string to_name;
    Victim victim;  // kRenamed: the entry it replaced, if any; kRemoved: the entry removed
  };
  static Victim victim_at(int dir_fd, const std::string& name);  // none: fd < 0
  uint64_t add_change(Change change, int64_t now);
  static void close_change(const Change& c);
  void undo_change(const Change& c, CrashReport& report);
  void bring_back(int dir_fd, const std::string& name, const Victim& v, CrashReport& report);
  // Whether `name` in `dir_fd` is the inode (dev, ino), or the copy bring_back made of it
  // (undoing older changes must find it).
  bool is_inode(int dir_fd, const std::string& name, dev_t dev, ino_t ino) const;
  void prune_locked(int64_t now);
  void restore_file(const FileRestore& r, CrashReport& report);

  const uint64_t limit_bytes_;
  UndoLog log_;
  std::mutex mu_;
  std::map<uint64_t, int> files_;       // writeback id -> O_RDWR descriptor (the daemon's)
  std::map<uint64_t, Change> changes_;  // entry number -> the namespace change
  // During crash(): inodes brought back as copies, (st_dev, st_ino) -> the copy's.
  std::map<std::pair<dev_t, ino_t>, std::pair<dev_t, ino_t>> copies_;
  uint64_t next_entry_ = 1;
  int64_t last_prune_ns_ = INT64_MIN;
};

}  // namespace diskcond::mount
