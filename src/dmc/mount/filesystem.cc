#include "dmc/mount/filesystem.h"

#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "dmc/mount/fiemap.h"
#include "dmc/mount/syscall.h"
#include "dmc/mount/worker_loop.h"
#include "posix/files.h"

namespace diskcond::mount {
namespace {

// Kernel queue sizes: a profile with queue depth 256 must see that much concurrency.
constexpr unsigned kMaxBackground = 512;
constexpr unsigned kCongestionThreshold = 384;

void op_init(void* userdata, fuse_conn_info* conn) {
  auto& fs = *static_cast<Filesystem*>(userdata);
  if (conn->capable & FUSE_CAP_ASYNC_DIO) conn->want |= FUSE_CAP_ASYNC_DIO;
  const Filesystem::RequestLimits& asked = fs.request_limits;
  if (asked.read > 0) conn->max_read = asked.read;  // libfuse wants it with -o max_read
  if (fs.splicing.requests && (conn->capable & FUSE_CAP_SPLICE_READ)) {
    conn->want |= FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_MOVE;
  } else if (conn->capable & FUSE_CAP_SPLICE_READ) {
    conn->want &= ~FUSE_CAP_SPLICE_READ;
  }
  // Spliced replies (op_read asks for no move: a moved page would leave the backing file).
  conn->want &= ~FUSE_CAP_SPLICE_WRITE;
  if (fs.splicing.replies && fs.uring == nullptr && (conn->capable & FUSE_CAP_SPLICE_WRITE)) {
    conn->want |= FUSE_CAP_SPLICE_WRITE;
  } else {
    fs.splicing.replies = false;
  }
  conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;  // write-through page cache (docs/conditioner.md)
  // The kernel keeps what was written through the mount in its page cache, as it would on a
  // local disk. With auto_inval_data it would drop a file's pages at the next attribute refresh
  // after every write (its cached mtime is not updated by write-through writes), and every read
  // after a write would reach the pretend disk. A change of size made outside the mount still
  // invalidates (the kernel's rule); see docs/conditioner.md "Caching".
  conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
  if (conn->capable & FUSE_CAP_EXPORT_SUPPORT) conn->want &= ~FUSE_CAP_EXPORT_SUPPORT;
  // No write's data larger than the workers' receive buffers hold (worker_loop.h).
  conn->max_write = std::min<unsigned>(conn->max_write, kMaxWriteBytes);
  // The kernel takes no max_write below 4096 (it raises it to that), so neither does the daemon.
  if (asked.write > 0) conn->max_write = std::min(conn->max_write, std::max(asked.write, 4096u));
  fs.write_request_max_bytes.store(conn->max_write, std::memory_order_relaxed);
  const unsigned page = static_cast<unsigned>(sysconf(_SC_PAGESIZE));
  const unsigned max_pages_bytes = (conn->max_write + page - 1) / page * page;
  fs.read_request_max_bytes.store(
      asked.read > 0 ? std::min(asked.read, max_pages_bytes) : max_pages_bytes,
      std::memory_order_relaxed);
  conn->max_background = kMaxBackground;
  conn->congestion_threshold = kCongestionThreshold;
  if (fs.ready_fd >= 0) {
    posix::write_all(fs.ready_fd, "ok " + std::to_string(getpid()) + "\n");
    close(fs.ready_fd);
    fs.ready_fd = -1;
  }
}

}  // namespace

Filesystem& fs_of(fuse_req_t req) {
  return *static_cast<Filesystem*>(fuse_req_userdata(req));
}

int lookup_entry(Filesystem& fs, int parent_fd, const char* name, fuse_entry_param* e,
                 Ticket* reads) {
  std::memset(e, 0, sizeof(*e));
  int fd = static_cast<int>(check(openat(parent_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)));
  if (fd < 0) return fd;
  int r = static_cast<int>(check(fstatat(fd, "", &e->attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)));
  if (r < 0) {
    close(fd);
    return r;
  }
  bool fresh = false;
  Inode& inode = fs.inodes.add_lookup(fd, e->attr, &fresh);
  if (fresh) {
    const Piece table = fs.layout.hold_inode(inode.ino, /*created=*/reads == nullptr);
    if (table.length > 0) {
      fs.conditioner.submit(*reads, Op::kRead, table.address, table.length);
    }
    if (reads == nullptr && inode.type == S_IFDIR) inode.dir_cached = true;  // just made
  }
  e->ino = fs.inodes.id_of(inode);
  e->attr_timeout = fs.attr_timeout_s;
  e->entry_timeout = fs.entry_timeout_s;
  return 0;
}

namespace {

// The backing directory's extents (FIEMAP needs a descriptor open for reading; `dir_fd` may be
// O_PATH), or nullopt where the backing file system reports none.
std::optional<std::vector<Extent>> directory_extents(int dir_fd) {
  constexpr size_t kMaxExtents = 32;  // 128 KiB is read at most: 32 blocks
  const int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  auto extents = file_extents(fd, kMaxExtents);
  close(fd);
  return extents;
}

}  // namespace

void read_directory_blocks(Filesystem& fs, Inode& dir, int dir_fd, Ticket& reads) {
  if (dir.dir_cached.exchange(true)) return;
  struct stat st;
  if (fstat(dir_fd, &st) != 0) return;
  constexpr uint64_t kBlock = 4096, kMaxRead = 128 * 1024;
  const uint64_t bytes = std::clamp<uint64_t>(
      (static_cast<uint64_t>(st.st_size) + kBlock - 1) / kBlock * kBlock, kBlock, kMaxRead);
  const auto extents = directory_extents(dir_fd);
  for (const Piece& p : fs.layout.directory_pieces(dir.ino, extents ? &*extents : nullptr, bytes)) {
    fs.conditioner.submit(reads, Op::kRead, p.address, p.length);
  }
}

void forget_inode(Filesystem& fs, fuse_ino_t id, uint64_t n) {
  auto dropped = fs.inodes.forget(id, n);
  if (!dropped) return;
  fs.layout.release_inode(dropped->ino);
  fs.layout.drop(writeback_file_id(dropped->dev, dropped->ino));
}

std::vector<Piece> data_pieces(Filesystem& fs, const Inode& inode, uint64_t offset, uint64_t length,
                               bool write, uint64_t* allocated) {
  return fs.layout.map(writeback_file_id(inode), inode.region_base, offset, length, write,
                       allocated);
}

void place_file(Filesystem& fs, const Inode& inode, int fd, bool direct, bool no_blocks) {
  const uint64_t file = writeback_file_id(inode);
  if (inode.type != S_IFREG) return;
  if (direct) {
    fs.layout.set_linear(file, inode.region_base);
    return;
  }
  if (fs.layout.placed(file)) return;
  const bool on_root_fs = inode.dev == fs.inodes.root().dev;
  const int answers = on_root_fs && no_blocks ? fs.root_fiemap.load(std::memory_order_relaxed) : 0;
  std::optional<std::vector<Extent>> extents;
  if (answers > 0) {
    extents.emplace();  // what FIEMAP answers for a file without blocks: no located extents
  } else if (answers == 0) {
    extents = file_extents(fd);
    if (on_root_fs) fs.root_fiemap.store(extents ? 1 : -1, std::memory_order_relaxed);
  }
  if (extents) {
    fs.layout.set_extents(file, inode.ino, std::move(*extents));
  } else {
    fs.layout.set_hashed(file, inode.region_base);
  }
}

Ticket begin_metadata_change(Filesystem& fs, const Inode& changed, uint64_t undo) {
  Ticket t = fs.conditioner.begin_metadata();
  fs.conditioner.change_metadata(t, writeback_file_id(changed),
                                 fs.layout.inode_address(changed.ino),
                                 fs.cache.load() == CacheMode::kWriteBack, undo);
  return t;
}

void journal_new_entry(Filesystem& fs, Ticket& t, fuse_ino_t ino, int dir_fd, const char* name) {
  if (fs.cache.load() != CacheMode::kWriteBack) return;
  const Inode& inode = fs.inodes.get(ino);
  uint64_t token = 0;
  if (fs.crash != nullptr && name != nullptr && dir_fd >= 0) {
    token = fs.crash->after_create(dir_fd, name, inode.dev, inode.ino, inode.type == S_IFDIR,
                                   t.arrival_ns());
  }
  fs.conditioner.journal(t, writeback_file_id(inode), fs.layout.inode_address(inode.ino), token);
}

void finish_err(Filesystem& fs, Ticket t, fuse_req_t req, int err) {
  fs.conditioner.finish(std::move(t), [req, err] { fuse_reply_err(req, err); });
}

void finish_entry(Filesystem& fs, Ticket t, fuse_req_t req, int err, const fuse_entry_param& e) {
  fs.conditioner.finish(std::move(t), [req, err, e] {
    if (err != 0) {
      fuse_reply_err(req, err);
    } else {
      fuse_reply_entry(req, &e);
    }
  });
}

fuse_lowlevel_ops filesystem_operations() {
  fuse_lowlevel_ops ops;
  std::memset(&ops, 0, sizeof(ops));
  ops.init = op_init;
  add_entry_operations(ops);
  add_namespace_operations(ops);
  add_directory_operations(ops);
  add_file_operations(ops);
  add_xattr_operations(ops);
  return ops;
}

}  // namespace diskcond::mount
