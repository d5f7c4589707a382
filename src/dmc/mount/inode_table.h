// The inodes the kernel knows about, keyed by the backing (st_dev, st_ino).
//
// Each entry has an O_PATH|O_NOFOLLOW descriptor of the backing file (opened through the
// directory descriptor taken before the mount was put on top, never through a path), its lookup
// count, and its region on the pretend device. The FUSE node id of an entry is its address; the
// root (FUSE_ROOT_ID) is the directory being conditioned.
//
// Descriptor budget: a tree can hold more inodes than the process may have descriptors
// (RLIMIT_NOFILE). When more than `fd_budget` descriptors are open, the least recently used
// unpinned ones are closed and reopened on demand with open_by_handle_at: an entry's file handle
// (name_to_handle_at) is taken just before its descriptor is first closed, not at its lookup
// (most entries never reach the budget, and an empty system call takes 1.07 us on the project's
// VM: a mkdir made six besides its /dev/fuse reads and writes, passthrough_ll five;
// docs/benchmarks.md section 2). Handlers reach a descriptor only through pin(), which keeps it
// open while the InodeFd lives. Reopening needs CAP_DAC_READ_SEARCH: pin() BEFORE switching to the
// caller's credentials. Entries on other filesystems than the conditioned directory's (submounts),
// or on filesystems without file handles, are never closed.
//
// Locking: one mutex guards the map, lookup counts, descriptors, pins and the LRU list. Only the
// deferred closes' own lock is taken while holding it (to count them); no FUSE reply is sent
// under it.
// Descriptors are closed and reopened outside it (a file handle is taken under it, only when its
// descriptor is about to be closed for the budget). An Inode stays valid until the kernel forgets
// it (nlookup reaches 0), which the kernel only does once no request uses it.
#pragma once

#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "dmc/mount/address_space.h"
#include "dmc/mount/deferred_close.h"
#include "dmc/mount/partial_pages.h"

namespace diskcond::mount {

class InodeTable;

struct Inode {
  dev_t dev = 0;
  ino_t ino = 0;
  mode_t type = 0;  // S_IFMT bits
  uint64_t region_base = 0;
  // A directory whose blocks the model has read since the kernel took it (or that it created):
  // lookups and listings in it read no directory block (Layout, docs/disk-model.md).
  std::atomic<bool> dir_cached{false};
  // Pages the kernel's page cache holds partly written since it took the inode: their first
  // read is free (partial_pages.h).
  PartialPages partial_pages;
  // Guarded by InodeTable::mu_:
  uint64_t nlookup = 0;
  int fd = -1;        // O_PATH|O_NOFOLLOW, or -1 while closed for the budget
  uint32_t pins = 0;  // InodeFds alive
  // On the root's filesystem and not yet refused a handle: its descriptor may be closed for the
  // budget (in the LRU list while open).
  bool reopenable = false;
  std::vector<unsigned char> handle;  // struct file_handle bytes; empty until first closed
  std::list<Inode*>::iterator lru;    // valid when in_lru
  bool in_lru = false;
};

// A pinned O_PATH descriptor of an inode, open for as long as this object lives. Move-only.
class InodeFd {
 public:
  InodeFd() = default;
  InodeFd(InodeFd&& other) noexcept { *this = std::move(other); }
  InodeFd& operator=(InodeFd&& other) noexcept;
  ~InodeFd() { release(); }

  bool ok() const { return fd_ >= 0; }
  int get() const { return fd_; }               // REQUIRES: ok()
  int error() const { return ok() ? 0 : fd_; }  // -errno when the inode could not be reopened

 private:
  friend class InodeTable;
  void release();
  InodeTable* table_ = nullptr;
  Inode* inode_ = nullptr;
  int fd_ = -EBADF;
};

class InodeTable {
 public:
  // Takes ownership of `root_fd` (an O_PATH directory descriptor). `fd_budget` = 0: three
  // quarters of RLIMIT_NOFILE (the rest is for open files).
  InodeTable(int root_fd, const AddressSpace& space, size_t fd_budget = 0);
  ~InodeTable();
  InodeTable(const InodeTable&) = delete;
  InodeTable& operator=(const InodeTable&) = delete;

  Inode& root() { return *root_; }
  // REQUIRES: `id` is FUSE_ROOT_ID or a node id this table handed out and the kernel still holds.
  Inode& get(fuse_ino_t id) {
    return id == FUSE_ROOT_ID ? *root_ : *reinterpret_cast<Inode*>(static_cast<uintptr_t>(id));
  }
  fuse_ino_t id_of(const Inode& inode) const {
    return &inode == root_.get() ? FUSE_ROOT_ID : reinterpret_cast<uintptr_t>(&inode);
  }

  // The inode's descriptor, reopened if it was closed for the budget. Check ok().
  InodeFd pin(Inode& inode);

  // Records one kernel lookup of the file `fd` (O_PATH) whose attributes are `st`: returns the
  // existing entry for (st_dev, st_ino) or a new one (then `*fresh` is set: the kernel did not
  // hold this inode). Takes ownership of `fd`.
  Inode& add_lookup(int fd, const struct stat& st, bool* fresh = nullptr);
  // The kernel dropped `n` lookups of `id`; the entry goes when none remain, and then its
  // identity is returned.
  struct Dropped {
    dev_t dev;
    ino_t ino;
  };
  // The dropped entry's descriptor is closed in the background (DeferredClose): for an unlinked
  // file that close frees its blocks on the backing file system.
  std::optional<Dropped> forget(fuse_ino_t id, uint64_t n);
  // Returns once the descriptors of every entry forgotten before the call are closed, so the
  // backing file system has freed what they held (statfs).
  void finish_closes() { closes_.drain(); }
  size_t size() const;
  size_t open_descriptors() const;

 private:
  friend class InodeFd;
  using Key = std::pair<dev_t, ino_t>;
  void unpin(Inode& inode);
  // Closes least recently used unpinned descriptors while the open ones and those of forgotten
  // entries waiting to be closed pass the budget, taking each one's file handle first (under mu_:
  // only past the budget; an entry whose filesystem refuses one is never closed). REQUIRES mu_;
  // returns the descriptors to close once mu_ is released.
  std::vector<int> evict_locked();
  void touch_locked(Inode& inode);
  void drop_lru_locked(Inode& inode);

  mutable std::mutex mu_;
  const AddressSpace& space_;
  size_t fd_budget_;
  size_t open_fds_ = 0;  // descriptors of non-root inodes
  std::unique_ptr<Inode> root_;
  std::map<Key, std::unique_ptr<Inode>> inodes_;  // everything but the root
  int mount_fd_ = -1;      // O_RDONLY on the root's filesystem, for open_by_handle_at
  std::list<Inode*> lru_;  // open, reopenable, most recent first
  DeferredClose closes_;   // its own lock, taken under mu_ only (pending()); it never takes mu_
};

}  // namespace diskcond::mount
