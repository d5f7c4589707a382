#include "dmc/mount/inode_table.h"

#include <unistd.h>

namespace diskcond::mount {

InodeTable::InodeTable(int root_fd, const AddressSpace& space) : space_(space) {
  struct stat st {};
  fstatat(root_fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
  root_ = std::make_unique<Inode>();
  root_->fd = root_fd;
  root_->dev = st.st_dev;
  root_->ino = st.st_ino;
  root_->type = S_IFDIR;
  root_->region_base = space_.region_base(st.st_dev, st.st_ino);
  root_->nlookup = 2;  // never forgotten
}

InodeTable::~InodeTable() {
  for (auto& [key, inode] : inodes_) close(inode->fd);
  close(root_->fd);
}

Inode& InodeTable::add_lookup(int fd, const struct stat& st) {
  std::unique_lock lock(mu_);
  if (st.st_dev == root_->dev && st.st_ino == root_->ino) {
    lock.unlock();
    close(fd);
    return *root_;  // ".." of a child or a bind of the root: the kernel never forgets the root
  }
  auto [it, added] = inodes_.try_emplace(Key{st.st_dev, st.st_ino});
  if (added) {
    auto inode = std::make_unique<Inode>();
    inode->fd = fd;
    inode->dev = st.st_dev;
    inode->ino = st.st_ino;
    inode->type = st.st_mode & S_IFMT;
    inode->region_base = space_.region_base(st.st_dev, st.st_ino);
    it->second = std::move(inode);
  }
  Inode& inode = *it->second;
  ++inode.nlookup;
  lock.unlock();
  if (!added) close(fd);
  return inode;
}

void InodeTable::forget(fuse_ino_t id, uint64_t n) {
  if (id == FUSE_ROOT_ID) return;
  Inode& inode = get(id);
  int fd_to_close = -1;
  {
    std::lock_guard lock(mu_);
    inode.nlookup = inode.nlookup > n ? inode.nlookup - n : 0;
    if (inode.nlookup == 0) {
      auto it = inodes_.find(Key{inode.dev, inode.ino});
      if (it != inodes_.end() && it->second.get() == &inode) {
        fd_to_close = inode.fd;
        inodes_.erase(it);
      }
    }
  }
  if (fd_to_close >= 0) close(fd_to_close);
}

size_t InodeTable::size() const {
  std::lock_guard lock(mu_);
  return inodes_.size();
}

}  // namespace diskcond::mount
