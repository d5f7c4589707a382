#include "dmc/mount/inode_table.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace diskcond::mount {
namespace {

constexpr size_t kMinBudget = 64;

size_t default_budget() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1 << 20;
  return std::max<size_t>(kMinBudget, static_cast<size_t>(limit.rlim_cur) / 4 * 3);
}

// The file handle of `fd`, or empty when its filesystem has none.
std::vector<unsigned char> handle_of(int fd) {
  std::vector<unsigned char> bytes(sizeof(file_handle) + MAX_HANDLE_SZ);
  auto* fh = reinterpret_cast<file_handle*>(bytes.data());
  fh->handle_bytes = MAX_HANDLE_SZ;
  int mount_id = 0;
  if (name_to_handle_at(fd, "", fh, &mount_id, AT_EMPTY_PATH) != 0) return {};
  bytes.resize(sizeof(file_handle) + fh->handle_bytes);
  return bytes;
}

void close_all(const std::vector<int>& fds) {
  for (int fd : fds) close(fd);
}

}  // namespace

InodeFd& InodeFd::operator=(InodeFd&& other) noexcept {
  if (this != &other) {
    release();
    table_ = other.table_;
    inode_ = other.inode_;
    fd_ = other.fd_;
    other.table_ = nullptr;
    other.inode_ = nullptr;
    other.fd_ = -EBADF;
  }
  return *this;
}

void InodeFd::release() {
  if (table_ != nullptr && inode_ != nullptr) table_->unpin(*inode_);
  table_ = nullptr;
  inode_ = nullptr;
}

InodeTable::InodeTable(int root_fd, const AddressSpace& space, size_t fd_budget)
    : space_(space),
      fd_budget_(fd_budget == 0 ? default_budget() : fd_budget),
      // Descriptors waiting to be closed count against the budget (evict_locked): up to half
      // of it, so that lookups keep room.
      closes_(std::max<size_t>(fd_budget_ / 2, 1)) {
  struct stat st {};
  fstatat(root_fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
  root_ = std::make_unique<Inode>();
  root_->fd = root_fd;
  root_->dev = st.st_dev;
  root_->ino = st.st_ino;
  root_->type = S_IFDIR;
  root_->region_base = space_.region_base(st.st_dev, st.st_ino);
  root_->nlookup = 2;  // never forgotten, never closed
  // open_by_handle_at wants a real (not O_PATH) descriptor on the filesystem.
  mount_fd_ = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

InodeTable::~InodeTable() {
  for (auto& [key, inode] : inodes_) {
    if (inode->fd >= 0) close(inode->fd);
  }
  if (mount_fd_ >= 0) close(mount_fd_);
  close(root_->fd);
}

void InodeTable::touch_locked(Inode& inode) {
  if (!inode.reopenable || inode.fd < 0) return;
  if (inode.in_lru) {
    lru_.splice(lru_.begin(), lru_, inode.lru);
  } else {
    lru_.push_front(&inode);
    inode.lru = lru_.begin();
    inode.in_lru = true;
  }
}

void InodeTable::drop_lru_locked(Inode& inode) {
  if (!inode.in_lru) return;
  lru_.erase(inode.lru);
  inode.in_lru = false;
}

std::vector<int> InodeTable::evict_locked() {
  std::vector<int> to_close;
  auto it = lru_.end();
  // Descriptors of forgotten entries still waiting to be closed count against the budget.
  const size_t waiting = closes_.pending();
  while (open_fds_ + waiting > fd_budget_ && it != lru_.begin()) {
    --it;
    Inode& victim = **it;
    if (victim.pins > 0) continue;
    if (victim.handle.empty()) victim.handle = handle_of(victim.fd);
    if (victim.handle.empty()) {  // no handle: it could not be reopened, so it stays open
      victim.reopenable = false;
      victim.in_lru = false;
      it = lru_.erase(it);
      continue;
    }
    to_close.push_back(victim.fd);
    victim.fd = -1;
    --open_fds_;
    victim.in_lru = false;
    it = lru_.erase(it);
  }
  return to_close;
}

InodeFd InodeTable::pin(Inode& inode) {
  InodeFd pinned;
  if (&inode == root_.get()) {
    pinned.fd_ = root_->fd;  // never closed: no pin bookkeeping needed
    return pinned;
  }
  std::unique_lock lock(mu_);
  ++inode.pins;
  pinned.table_ = this;
  pinned.inode_ = &inode;
  if (inode.fd >= 0) {
    touch_locked(inode);
    pinned.fd_ = inode.fd;
    return pinned;
  }
  // Closed for the budget: reopen outside the lock (pins keep the entry alive meanwhile).
  const std::vector<unsigned char> handle = inode.handle;
  lock.unlock();
  int fd = -ESTALE;
  if (!handle.empty()) {
    auto* fh = reinterpret_cast<file_handle*>(const_cast<unsigned char*>(handle.data()));
    fd = open_by_handle_at(mount_fd_, fh, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) fd = -errno;
  }
  lock.lock();
  if (fd >= 0 && inode.fd >= 0) {  // another thread reopened it first
    close(fd);
    fd = inode.fd;
  } else if (fd >= 0) {
    inode.fd = fd;
    ++open_fds_;
  }
  touch_locked(inode);
  std::vector<int> to_close = evict_locked();
  lock.unlock();
  close_all(to_close);
  pinned.fd_ = fd;
  return pinned;
}

void InodeTable::unpin(Inode& inode) {
  std::lock_guard lock(mu_);
  --inode.pins;
}

Inode& InodeTable::add_lookup(int fd, const struct stat& st, bool* fresh) {
  if (fresh != nullptr) *fresh = false;
  std::unique_lock lock(mu_);
  if (st.st_dev == root_->dev && st.st_ino == root_->ino) {
    lock.unlock();
    close(fd);
    return *root_;  // ".." of a child or a bind of the root: the kernel never forgets the root
  }
  auto [it, added] = inodes_.try_emplace(Key{st.st_dev, st.st_ino});
  if (fresh != nullptr) *fresh = added;
  bool keep_fd = false;
  if (added) {
    auto inode = std::make_unique<Inode>();
    inode->dev = st.st_dev;
    inode->ino = st.st_ino;
    inode->type = st.st_mode & S_IFMT;
    inode->region_base = space_.region_base(st.st_dev, st.st_ino);
    it->second = std::move(inode);
  }
  Inode& inode = *it->second;
  ++inode.nlookup;
  if (added) {
    // Only files on the conditioned directory's own filesystem can be reopened (submounts below
    // it keep their descriptors).
    inode.reopenable = st.st_dev == root_->dev && mount_fd_ >= 0;
  }
  if (inode.fd < 0) {  // new, or closed for the budget: this descriptor will do
    inode.fd = fd;
    ++open_fds_;
    keep_fd = true;
  }
  touch_locked(inode);
  std::vector<int> to_close = evict_locked();
  lock.unlock();
  if (!keep_fd) close(fd);
  close_all(to_close);
  return inode;
}

std::optional<InodeTable::Dropped> InodeTable::forget(fuse_ino_t id, uint64_t n) {
  if (id == FUSE_ROOT_ID) return std::nullopt;
  Inode& inode = get(id);
  int fd_to_close = -1;
  std::optional<Dropped> dropped;
  {
    std::lock_guard lock(mu_);
    inode.nlookup = inode.nlookup > n ? inode.nlookup - n : 0;
    if (inode.nlookup == 0 && inode.pins == 0) {
      auto it = inodes_.find(Key{inode.dev, inode.ino});
      if (it != inodes_.end() && it->second.get() == &inode) {
        drop_lru_locked(inode);
        if (inode.fd >= 0) {
          fd_to_close = inode.fd;
          --open_fds_;
        }
        dropped = Dropped{inode.dev, inode.ino};
        inodes_.erase(it);
      }
    }
  }
  if (fd_to_close >= 0) closes_.close_later(fd_to_close);
  return dropped;
}

size_t InodeTable::size() const {
  std::lock_guard lock(mu_);
  return inodes_.size();
}

size_t InodeTable::open_descriptors() const {
  std::lock_guard lock(mu_);
  return open_fds_;
}

}  // namespace diskcond::mount
