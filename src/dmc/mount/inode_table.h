// The inodes the kernel knows about, keyed by the backing (st_dev, st_ino).
//
// Each entry holds an O_PATH|O_NOFOLLOW descriptor of the backing file (opened through the
// directory descriptor taken before the mount was put on top, never through a path), its lookup
// count, and its region on the pretend device. The FUSE node id of an entry is its address; the
// root (FUSE_ROOT_ID) is the directory being conditioned.
//
// Locking: one mutex guards the map and the lookup counts. It is a leaf lock: nothing else is
// locked while holding it, and no FUSE reply is sent under it. An Inode stays valid until the
// kernel forgets it (nlookup reaches 0), which the kernel only does once no request uses it.
#pragma once

#include <fuse_lowlevel.h>
#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "dmc/mount/address_space.h"

namespace diskcond::mount {

struct Inode {
  int fd = -1;  // O_PATH|O_NOFOLLOW, owned by the table
  dev_t dev = 0;
  ino_t ino = 0;
  mode_t type = 0;  // S_IFMT bits
  uint64_t region_base = 0;
  uint64_t nlookup = 0;  // guarded by InodeTable::mu_
};

class InodeTable {
 public:
  // Takes ownership of `root_fd` (an O_PATH directory descriptor).
  InodeTable(int root_fd, const AddressSpace& space);
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

  // Records one kernel lookup of the file `fd` (O_PATH) whose attributes are `st`: returns the
  // existing entry for (st_dev, st_ino) (closing `fd`) or a new one owning `fd`.
  Inode& add_lookup(int fd, const struct stat& st);
  // The kernel dropped `n` lookups of `id`; the entry goes when none remain.
  void forget(fuse_ino_t id, uint64_t n);
  size_t size() const;

 private:
  using Key = std::pair<dev_t, ino_t>;
  mutable std::mutex mu_;
  const AddressSpace& space_;
  std::unique_ptr<Inode> root_;
  std::map<Key, std::unique_ptr<Inode>> inodes_;  // everything but the root
};

}  // namespace diskcond::mount
