// File data: open, create, read, write, flush, fsync, fallocate, lseek, release.
//
// read/write/flush/fsync/fallocate are conditioned: submitted to the model at arrival (before
// the backing I/O), replied at max(model completion, backing I/O done). Backing writes go through
// 4 KiB aligned buffers, so files opened with O_DIRECT work when the application's offsets and
// sizes are aligned - exactly where the backing filesystem accepts them. O_DIRECT reads, and
// O_DIRECT writes while the mount is conditioned, go through a buffered twin descriptor with the
// same alignment rule (FileHandle).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "dmc/mount/buffer_pool.h"
#include "dmc/mount/credentials.h"
#include "dmc/mount/fault_injection.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/syscall.h"
#include "posix/files.h"

namespace diskcond::mount {
namespace {

// Fills the open reply's caching fields from the mount's current cache mode.
void set_cache_flags(const Filesystem& fs, fuse_file_info* fi) {
  if (fs.cache.load() == CacheMode::kNoCache) {
    fi->direct_io = 1;
    fi->keep_cache = 0;
  } else {
    fi->direct_io = 0;
    fi->keep_cache = 1;
  }
}

// For an O_DIRECT open: a buffered descriptor of the same file (same access mode, O_APPEND,
// O_SYNC and O_DSYNC, without O_DIRECT) and the backing filesystem's O_DIRECT offset alignment.
// {fd, 0} when there is none (no O_DIRECT, or the filesystem does not report its alignment).
// REQUIRES: caller credentials in effect (the reopen is checked like the caller's own open).
std::pair<int, uint32_t> buffered_twin(int fd, int flags) {
  if ((flags & O_DIRECT) == 0) return {fd, 0};
  struct statx stx;
  if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) != 0 ||
      (stx.stx_mask & STATX_DIOALIGN) == 0 || stx.stx_dio_offset_align == 0) {
    return {fd, 0};
  }
  const int kept = flags & (O_ACCMODE | O_APPEND | O_SYNC | O_DSYNC);
  const int twin = open(proc_fd_path(fd).c_str(), kept | O_CLOEXEC);
  if (twin < 0) return {fd, 0};
  return {twin, stx.stx_dio_offset_align};
}

// Takes ownership of `fd` (and its twin); stores a FileHandle in fi->fh.
void attach_handle(const Filesystem& fs, fuse_file_info* fi, int fd,
                   std::pair<int, uint32_t> twin) {
  const bool direct = (fi->flags & O_DIRECT) != 0;
  const CacheMode mode = fs.cache.load();
  auto* h = new FileHandle(fd, twin.first, twin.second, direct, mode == CacheMode::kWriteBack,
                           !direct && mode != CacheMode::kNoCache);
  fi->fh = reinterpret_cast<uintptr_t>(h);
  // A write-back handle's close charges nothing (flush_like), so the kernel need not ask:
  // FOPEN_NOFLUSH, which it honours because the mount never enables writeback_cache. That is
  // one round trip less per close (4,000 of a 2,000-file cp -r's 22,000 requests); dirty pages
  // of a shared mapping still reach us at munmap or by the kernel's writeback, as on a file
  // system without a flush method.
  fi->noflush = h->writeback ? 1 : 0;
}

// Opening with O_TRUNC changes the file: it costs a metadata write like any other change.
void op_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  Filesystem& fs = fs_of(req);
  Inode& inode = fs.inodes.get(ino);
  if (const FaultDecision fault = fault_at_inode(fs, req, FaultOp::kOpen, inode)) {
    fuse_reply_err(req, fault.error);
    return;
  }
  // Free (its reply at once) unless it truncates.
  Ticket ticket = (fi->flags & O_TRUNC) != 0 ? begin_metadata_change(fs, inode)
                                             : fs.conditioner.begin_metadata();
  InodeFd file = fs.inodes.pin(inode);
  const std::string path = proc_fd_path(file.get());
  int fd = file.error();
  std::pair<int, uint32_t> twin{-1, 0};
  if (file.ok()) {
    CallerCredentials creds(req);
    fd = creds.error()
             ? creds.error()
             : static_cast<int>(check(open(path.c_str(), (fi->flags & ~O_NOFOLLOW) | O_CLOEXEC)));
    if (fd >= 0) twin = buffered_twin(fd, fi->flags);
  }
  if (fd >= 0) place_file(fs, inode, fd, (fi->flags & O_DIRECT) != 0);
  if (fd < 0) {
    finish_err(fs, std::move(ticket), req, -fd);
    return;
  }
  if (fs.crash != nullptr && (fi->flags & O_TRUNC) != 0) fs.crash->keep(writeback_file_id(inode));
  attach_handle(fs, fi, fd, twin);
  set_cache_flags(fs, fi);
  fuse_file_info info = *fi;
  fs.conditioner.finish(std::move(ticket), [req, info]() mutable {
    if (fuse_reply_open(req, &info) != 0) {  // the caller went away: nobody will release it
      delete &handle_of(&info);
    }
  });
}

void op_create(fuse_req_t req, fuse_ino_t parent_id, const char* name, mode_t mode,
               fuse_file_info* fi) {
  Filesystem& fs = fs_of(req);
  Inode& parent = fs.inodes.get(parent_id);
  if (const FaultDecision fault = fault_at_entry(fs, req, FaultOp::kCreate, parent, name)) {
    fuse_reply_err(req, fault.error);
    return;
  }
  Ticket ticket = begin_metadata_change(fs, parent);
  fuse_entry_param e;
  std::memset(&e, 0, sizeof(e));
  InodeFd dir = fs.inodes.pin(parent);
  int fd = dir.error();
  int r = fd;
  std::pair<int, uint32_t> twin{-1, 0};
  // A crashable mount removes the files created since the last commit at a crash; a file that
  // was there (opened, perhaps truncated) is kept as it is now.
  struct stat existing;
  const bool existed = fs.crash != nullptr && dir.ok() &&
                       fstatat(dir.get(), name, &existing, AT_SYMLINK_NOFOLLOW) == 0;
  if (dir.ok()) {
    CallerCredentials creds(req);
    fd = creds.error()
             ? creds.error()
             : static_cast<int>(check(
                   openat(dir.get(), name, (fi->flags & ~O_NOFOLLOW) | O_CREAT | O_CLOEXEC, mode)));
    r = fd < 0 ? fd : lookup_entry(fs, dir.get(), name, &e, nullptr);
    if (r >= 0) twin = buffered_twin(fd, fi->flags);
  }
  if (r >= 0) {
    place_file(fs, fs.inodes.get(e.ino), fd, (fi->flags & O_DIRECT) != 0, e.attr.st_blocks == 0);
  }
  if (r < 0) {
    if (fd >= 0) close(fd);
    finish_err(fs, std::move(ticket), req, -r);
    return;
  }
  if (existed) {
    fs.crash->keep(writeback_file_id(fs.inodes.get(e.ino)));
    journal_new_entry(fs, ticket, e.ino);
  } else {
    journal_new_entry(fs, ticket, e.ino, dir.get(), name);
  }
  attach_handle(fs, fi, fd, twin);
  set_cache_flags(fs, fi);
  fuse_file_info info = *fi;
  fs.conditioner.finish(std::move(ticket), [req, e, info]() mutable {
    if (fuse_reply_create(req, &e, &info) != 0) {
      // The caller went away: undo what the kernel will never release.
      delete &handle_of(&info);
    }
  });
}

// The parts of a read of [offset, offset + size) the pretend disk must serve: all of it, but for
// pages the kernel's page cache holds partly written since it took the inode (PartialPages),
// which a local file system would have in memory.
std::vector<PartialPages::Range> disk_part(Filesystem& fs, Inode& inode, const FileHandle& h,
                                           uint64_t offset, uint64_t size) {
  if (!h.page_cache || !inode.partial_pages.touches(offset, size)) return {{offset, size}};
  const std::optional<uint64_t> drops = fs.page_cache_drops.now();
  if (!drops) return {{offset, size}};
  std::vector<PartialPages::Range> misses = inode.partial_pages.misses(offset, size, *drops);
  uint64_t missed = 0;
  for (const PartialPages::Range& r : misses) missed += r.length;
  fs.written_page_reads.fetch_add(
      (size - missed + PartialPages::kPageBytes - 1) / PartialPages::kPageBytes,
      std::memory_order_relaxed);
  return misses;
}

// Replies with the data `piped` holds, moved from its pipe to /dev/fuse (libfuse's spliced
// reply; its copying fallback reads the pipe where splicing is refused). The whole reply is timed
// for the copy lead, as a large writev is (session_io.cc): the header's vmsplice and the move into
// libfuse's pipe come before the copy into the caller, and a lead without them would be short.
void reply_spliced(Filesystem& fs, fuse_req_t req, const ReplyPipes::Filled& piped) {
  fuse_bufvec data = FUSE_BUFVEC_INIT(piped.bytes());
  data.buf[0].flags = FUSE_BUF_IS_FD;
  data.buf[0].fd = piped.read_fd();
  const auto before = std::chrono::steady_clock::now();  // CLOCK_MONOTONIC, as timed_writev's
  const int result = fuse_reply_data(req, &data, static_cast<fuse_buf_copy_flags>(0));
  const auto took = std::chrono::steady_clock::now() - before;
  if (result == 0) {
    fs.conditioner.reply_copy_bound().record(
        piped.bytes(), std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
    fs.spliced_read_replies.fetch_add(1, std::memory_order_relaxed);
  }
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, fuse_file_info* fi) {
  Filesystem& fs = fs_of(req);
  const FileHandle& h = handle_of(fi);
  if (h.direct_align != 0 &&
      (static_cast<uint64_t>(offset) % h.direct_align != 0 || size % h.direct_align != 0)) {
    fuse_reply_err(req, EINVAL);  // refused before it reaches the disk, as O_DIRECT would be
    return;
  }
  const FaultDecision fault = fault_at_fd(fs, req, FaultOp::kRead, h.fd, offset, size);
  if (fault.action == FaultAction::kError) {
    fuse_reply_err(req, fault.error);
    return;
  }
  if (fault.action == FaultAction::kShort) size = fault.length;
  Ticket ticket = fs.conditioner.begin(Op::kRead, size);
  Inode& inode = fs.inodes.get(ino);
  for (const PartialPages::Range& part :
       disk_part(fs, inode, h, static_cast<uint64_t>(offset), size)) {
    for (const Piece& p : data_pieces(fs, inode, part.offset, part.length, false)) {
      fs.conditioner.submit(ticket, Op::kRead, p.address, p.length);
    }
  }
  fs.conditioner.charged(ticket);
  if (fault.action != FaultAction::kCorrupt && fs.splicing.replies) {
    bool spliced = false;
    auto piped = std::make_shared<ReplyPipes::Filled>(
        fs.reply_pipes.fill(h.buffered_fd, offset, size, &spliced));
    if (spliced) {
      const uint64_t n = piped->bytes();
      fs.conditioner.finish(
          std::move(ticket), [&fs, req, piped] { reply_spliced(fs, req, *piped); }, n);
      return;
    }
  }
  auto buf = std::make_shared<BufferPool::Buffer>(fs.buffers.get(size));
  ssize_t n = buf->data() ? pread(h.buffered_fd, buf->data(), size, offset) : -1;
  const int err = n < 0 ? (buf->data() ? errno : ENOMEM) : 0;
  // Silent corruption: the reply's copy only.
  if (fault.action == FaultAction::kCorrupt && n > 0) {
    corrupt_reply(fault, static_cast<uint64_t>(offset),
                  std::span<char>(static_cast<char*>(buf->data()), static_cast<size_t>(n)));
  }
  fs.conditioner.finish(
      std::move(ticket),
      [req, buf, n, err] {
        if (err != 0) {
          fuse_reply_err(req, err);
        } else {
          fuse_reply_buf(req, buf->data(), static_cast<size_t>(n));
        }
      },
      n > 0 ? static_cast<uint64_t>(n) : 0);
}

// Writes the first `size` bytes of `in` at `offset` to the backing file through `fd` (`direct`:
// opened O_DIRECT). Returns bytes written or -errno. Data already in memory goes straight to a
// buffered descriptor; O_DIRECT (and data in a pipe) goes through an aligned copy.
// REQUIRES: size <= fuse_buf_size(in).
ssize_t backing_write(BufferPool& buffers, int fd, bool direct, fuse_bufvec* in, off_t offset,
                      size_t size) {
  if (!direct && in->count == 1 && in->idx == 0 && in->off == 0 &&
      (in->buf[0].flags & FUSE_BUF_IS_FD) == 0) {
    return posix::pwrite_all(fd, static_cast<const char*>(in->buf[0].mem), size, offset);
  }
  BufferPool::Buffer buf = buffers.get(size);
  if (buf.data() == nullptr) return -ENOMEM;
  fuse_bufvec mem = FUSE_BUFVEC_INIT(size);
  mem.buf[0].mem = buf.data();
  ssize_t got = fuse_buf_copy(&mem, in, static_cast<fuse_buf_copy_flags>(0));
  if (got < 0) return got;
  return posix::pwrite_all(fd, buf.data(), static_cast<size_t>(got), offset);
}

// Whether an O_DIRECT write goes to the buffered twin: while the profile charges time the model,
// not the backing disk, decides when it completes (docs/conditioner.md "Caching"), and the
// backing disk's own write latency would set the mount's floor. With conditioning off, O_DIRECT
// keeps its meaning (the backing disk's). O_DIRECT's rule stays: an offset or size that is not a
// multiple of the alignment fails with EINVAL (`aligned` false).
bool use_buffered_twin(const Filesystem& fs, const FileHandle& h, off_t offset, size_t size,
                       bool* aligned) {
  *aligned = h.direct_align == 0 ||
             (static_cast<uint64_t>(offset) % h.direct_align == 0 && size % h.direct_align == 0);
  return fs.conditioner.charges_time() && h.buffered_fd != h.fd;
}

// What a write of `size` bytes at `offset` that returned `n` (bytes or -errno) left in the
// kernel's page cache (PartialPages): through the page cache, the pages it wrote in part; a
// direct write, or a failed one, leaves none of its pages there. `now_ns`: steady time.
void note_cached_pages(Filesystem& fs, Inode& inode, const FileHandle& h, uint64_t offset,
                       uint64_t size, ssize_t n, uint64_t now_ns) {
  if (h.page_cache && n > 0) {
    inode.partial_pages.note_write(offset, static_cast<uint64_t>(n),
                                   fs.page_cache_drops.recent(now_ns));
  } else {
    inode.partial_pages.note_direct_write(offset, size);
  }
}

// Write-back mode (a buffered handle): the data becomes dirty in the model and the reply goes at
// once (later only when the writer is throttled at the dirty limit), but the backing write is
// still done before the reply, so an acknowledged write survives the daemon. O_SYNC and O_DSYNC
// writes pay when the kernel's fsync for them follows (generic_write_sync sends FUSE_FSYNC).
// Otherwise (write-through, direct I/O): the write is a model command the reply waits for.
void op_write_buf(fuse_req_t req, fuse_ino_t ino, fuse_bufvec* in, off_t offset,
                  fuse_file_info* fi) {
  Filesystem& fs = fs_of(req);
  size_t size = fuse_buf_size(in);
  const FileHandle& h = handle_of(fi);
  // An error rule: refused before the quota, the model and the backing file; a short write does
  // the first part only.
  const FaultDecision fault = fault_at_fd(fs, req, FaultOp::kWrite, h.fd, offset, size);
  if (fault.action == FaultAction::kError) {
    fuse_reply_err(req, fault.error);
    return;
  }
  if (fault.action == FaultAction::kShort) size = fault.length;
  // A lost write: everything as usual but the backing write and the space it would take.
  const bool lost = fault.action == FaultAction::kLostWrite;
  const bool buffered = h.writeback && !h.direct;
  const bool quota_on = fs.quota.capacity() != 0 && !lost;
  // One fstat serves the quota (the worst-case new allocation) and write-back (whether the write
  // grows the file); neither needs it otherwise.
  struct stat before {};
  const bool have_before = (buffered || quota_on) && fstat(h.fd, &before) == 0;
  const uint64_t allocated_before = have_before ? static_cast<uint64_t>(before.st_blocks) * 512 : 0;
  // A pretend disk smaller than the backing one: a write that could pass its capacity fails
  // before it reaches the model or the backing file, as on a full disk.
  uint64_t reserved = 0;
  if (quota_on) {
    if (have_before) {
      reserved =
          worst_case_write_allocation(static_cast<uint64_t>(offset), size,
                                      static_cast<uint64_t>(before.st_size), allocated_before);
    }
    if (!fs.quota.reserve(reserved)) {
      fuse_reply_err(req, ENOSPC);
      return;
    }
  }
  Ticket ticket = fs.conditioner.begin(Op::kWrite, size);
  const Inode& inode = fs.inodes.get(ino);
  // A buffered write that grows the file or gets new blocks changes more than its timestamps:
  // fdatasync must commit it (Writeback::fsync).
  const bool grows = buffered && (!have_before || static_cast<uint64_t>(before.st_size) <
                                                      static_cast<uint64_t>(offset) + size);
  // A crashable mount saves what a buffered write replaces (its undo log); a write the model
  // waits for is durable once acknowledged, and with it the file's earlier writes.
  uint64_t undo = 0;
  if (fs.crash != nullptr) {
    const uint64_t id = writeback_file_id(inode);
    if (buffered && have_before) {
      undo = fs.crash->before_write(id, h.fd, static_cast<uint64_t>(offset), size,
                                    static_cast<uint64_t>(before.st_size), ticket.arrival_ns());
      if (fs.crash->over_limit()) fs.conditioner.sync(ticket);
    } else {
      fs.crash->keep(id);
    }
  }
  uint64_t allocated = 0;
  const std::vector<Piece> pieces =
      data_pieces(fs, inode, static_cast<uint64_t>(offset), size, true, &allocated);
  for (const Piece& p : pieces) {
    if (buffered) {
      fs.conditioner.buffered_write(ticket, writeback_file_id(inode), p.address, p.length,
                                    fs.layout.inode_address(inode.ino), grows || allocated > 0,
                                    undo);
    } else {
      fs.conditioner.submit(ticket, Op::kWrite, p.address, p.length);
    }
  }
  // New blocks change their group's block bitmap and group descriptor, which ext4 journals with
  // the inode (at writeback, delayed allocation; the same transaction when an fsync forces it).
  if (buffered && allocated > 0) {
    for (const Piece& p : pieces) {
      fs.conditioner.journal(ticket, writeback_file_id(inode),
                             fs.layout.block_bitmap_address(p.address));
      fs.conditioner.journal(ticket, writeback_file_id(inode),
                             fs.layout.group_descriptor_address(p.address));
    }
  }
  fs.conditioner.charged(ticket);
  ssize_t n = static_cast<ssize_t>(size);
  bool aligned = true;
  const bool twin = h.direct && use_buffered_twin(fs, h, offset, size, &aligned);
  if (!aligned && twin) {
    n = -EINVAL;  // as the O_DIRECT backing file would refuse it
  } else if (!lost) {
    CapabilityDrop drop(fuse_req_ctx(req)->uid);  // a write by a user clears setuid bits
    n = twin ? backing_write(fs.buffers, h.buffered_fd, false, in, offset, size)
             : backing_write(fs.buffers, h.fd, h.direct, in, offset, size);
  }
  if (quota_on) {
    fs.quota.settle(reserved, static_cast<int64_t>(allocated_bytes(h.fd)) -
                                  static_cast<int64_t>(allocated_before));
  }
  note_cached_pages(fs, fs.inodes.get(ino), h, static_cast<uint64_t>(offset), size, n,
                    static_cast<uint64_t>(ticket.arrival_ns()));
  fs.conditioner.finish(std::move(ticket), [req, n] {
    if (n < 0) {
      fuse_reply_err(req, static_cast<int>(-n));
    } else {
      fuse_reply_write(req, static_cast<size_t>(n));
    }
  });
}

// What a flush_like request is: a close's FUSE_FLUSH, fsync(2) or fdatasync(2).
enum class Flush { kClose, kFsync, kFdatasync };

// flush (every close) and fsync: a model flush, completing once earlier writes have. In
// write-back mode close does not wait (nothing is charged), and fsync pays for the file's dirty
// data, the journal commit and a flush (Conditioner::fsync).
void flush_like(fuse_req_t req, fuse_ino_t ino, const FileHandle& h, Flush what) {
  Filesystem& fs = fs_of(req);
  if (what != Flush::kClose) {
    if (const FaultDecision fault = fault_at_fd(fs, req, FaultOp::kFsync, h.fd)) {
      fuse_reply_err(req, fault.error);
      return;
    }
  }
  Ticket ticket = fs.conditioner.begin(Op::kFlush, 0);
  if (!h.writeback) {
    fs.conditioner.submit(ticket, Op::kFlush, 0, 0);
  } else if (what != Flush::kClose) {
    fs.conditioner.fsync(ticket, writeback_file_id(fs.inodes.get(ino)), what == Flush::kFdatasync);
  }
  int r = 0;
  if (what == Flush::kFsync) r = static_cast<int>(check(fsync(h.fd)));
  if (what == Flush::kFdatasync) r = static_cast<int>(check(fdatasync(h.fd)));
  finish_err(fs, std::move(ticket), req, -r);
}

void op_flush(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  flush_like(req, ino, handle_of(fi), Flush::kClose);
}

void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, fuse_file_info* fi) {
  flush_like(req, ino, handle_of(fi), datasync ? Flush::kFdatasync : Flush::kFsync);
}

void op_release(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  delete &handle_of(fi);
  fuse_reply_err(req, 0);
}

void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                  fuse_file_info* fi) {
  Filesystem& fs = fs_of(req);
  const int fd = handle_of(fi).fd;
  // Allocating modes may take up to `length` new bytes of the pretend disk; punching frees.
  const bool allocates = (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE)) == 0;
  const uint64_t reserved = allocates ? static_cast<uint64_t>(length) : 0;
  const uint64_t allocated_before = fs.quota.capacity() != 0 ? allocated_bytes(fd) : 0;
  if (!fs.quota.reserve(reserved)) {
    fuse_reply_err(req, ENOSPC);
    return;
  }
  Ticket ticket = begin_metadata_change(fs, fs.inodes.get(ino));
  if (fs.crash != nullptr) fs.crash->keep(writeback_file_id(fs.inodes.get(ino)));
  int r;
  {
    CapabilityDrop drop(fuse_req_ctx(req)->uid);
    r = static_cast<int>(check(fallocate(fd, mode, offset, length)));
  }
  if (fs.quota.capacity() != 0) {
    fs.quota.settle(reserved, static_cast<int64_t>(allocated_bytes(fd)) -
                                  static_cast<int64_t>(allocated_before));
  }
  finish_err(fs, std::move(ticket), req, -r);
}

void op_lseek(fuse_req_t req, fuse_ino_t, off_t offset, int whence, fuse_file_info* fi) {
  off_t r = lseek(handle_of(fi).fd, offset, whence);
  if (r < 0) {
    fuse_reply_err(req, errno);
  } else {
    fuse_reply_lseek(req, r);
  }
}

}  // namespace

FileHandle::~FileHandle() {
  if (buffered_fd != fd) close(buffered_fd);
  close(fd);
}

void add_file_operations(fuse_lowlevel_ops& ops) {
  ops.open = op_open;
  ops.create = op_create;
  ops.read = op_read;
  ops.write_buf = op_write_buf;
  ops.flush = op_flush;
  ops.fsync = op_fsync;
  ops.release = op_release;
  ops.fallocate = op_fallocate;
  ops.lseek = op_lseek;
}

}  // namespace diskcond::mount
