// The conditioned passthrough filesystem: FUSE low-level operations serving the original tree
// through the O_PATH descriptor of the conditioned directory taken before the mount.
//
// One handler per operation, grouped by kind in ops_*.cc. Every handler replies exactly once,
// never throws, and never sleeps: conditioned replies go through Conditioner/ReplyScheduler.
// Handlers that resolve names or create files run under CallerCredentials.
#pragma once

#include <fuse_lowlevel.h>

#include <atomic>
#include <string>
#include <vector>

#include "core/fault_rules.h"
#include "core/layout.h"
#include "dmc/mount/address_space.h"
#include "dmc/mount/buffer_pool.h"
#include "dmc/mount/conditioner.h"
#include "dmc/mount/crash_recorder.h"
#include "dmc/mount/inode_table.h"
#include "dmc/mount/killpriv_v2.h"
#include "dmc/mount/mount_control.h"
#include "dmc/mount/page_cache_drops.h"
#include "dmc/mount/reply_pipes.h"
#include "dmc/mount/send_order.h"
#include "dmc/mount/send_stamps.h"
#include "dmc/mount/space_quota.h"
#include "dmc/mount/transit_probe.h"
#include "dmc/mount/worker_cpus.h"

namespace diskcond::mount {

class FuseUring;

// Freed data buffers kept for reuse: as many 1 MiB requests as there are FUSE workers.
constexpr size_t kCachedBufferBytes = size_t{64} << 20;

struct Filesystem {
  // `fd_budget`: see InodeTable (0 = from RLIMIT_NOFILE). `layout`: the pretend device's
  // geometry (LayoutParams::like_ext4 of the backing filesystem); its capacity is `capacity`.
  Filesystem(int root_fd, uint64_t capacity, Conditioner& conditioner, CacheMode cache,
             size_t fd_budget = 0, LayoutParams layout_params = {})
      : space(capacity),
        inodes(root_fd, space, fd_budget),
        layout(with_capacity(layout_params, capacity)),
        conditioner(conditioner),
        cache(cache) {}
  // The root's inode is not held in `layout`: the kernel keeps it for the mount's life, but its
  // inode-table block would not stay in memory for that (ext4 reads an inode once), and it must
  // not keep the directory's first files warm.

  AddressSpace space;  // hashed addresses: the fallback where the backing has no FIEMAP
  InodeTable inodes;
  Layout layout;  // where files and metadata live; which inode-table blocks are in memory
  BufferPool buffers{kCachedBufferBytes};  // data buffers of reads and direct writes
  SpaceQuota quota;                // the profile's capacity (statfs, ENOSPC); off when it has none
  FaultRules faults;               // error rules (fault_injection.h); none: every request passes
  CrashRecorder* crash = nullptr;  // -crashable: the undo log of power loss; null: none
  std::string mount_point;  // the conditioned directory's path, for the rules' relative paths
  Conditioner& conditioner;
  std::atomic<CacheMode> cache;  // applies to files opened afterwards
  ProbeStamp probe_stamp;        // the daemon's transit probe's own getattr requests
  double entry_timeout_s = 1.0;
  double attr_timeout_s = 1.0;
  int ready_fd = -1;    // the daemon's readiness pipe; init writes "ok <pid>" to it and closes it
  KillprivV2 killpriv;  // the session's /dev/fuse I/O (killpriv_v2.h)
  PageCacheDrops page_cache_drops;  // when pages a file's Inode::partial_pages noted are gone
  std::atomic<uint64_t> written_page_reads{0};  // MountCounters::written_page_reads
  FuseUring* uring = nullptr;  // DISKCOND_FUSE_URING=1: the rings (fuse_uring.h); null: none
  struct Splicing {
    // Write requests' data through a pipe (libfuse's splice read; DISKCOND_FUSE_SPLICE=1): off
    // by default (docs/conditioner.md "Transport").
    bool requests = false;
    // Reads' data spliced from the backing file's page cache into their replies (reply_pipes.h;
    // DISKCOND_SPLICE_REPLIES): not with FUSE over io_uring, whose replies go through its rings.
    bool replies = false;
  } splicing;
  ReplyPipes reply_pipes;
  std::atomic<uint64_t> spliced_read_replies{0};  // MountDiagnostics::spliced_read_replies
  // The largest requests the daemon asks for (DaemonKnobs::max_read, max_write): reads (the
  // mount option max_read as well; 0: the kernel's limit) and writes (0: kMaxWriteBytes).
  struct RequestLimits {
    unsigned read = 0;
    unsigned write = 0;
  } request_limits;
  // The largest read and write requests the kernel sends, as the INIT reply set them (0 before
  // INIT). libfuse 3.14 derives the INIT reply's max_pages from max_write, and the kernel sends no
  // request of more pages, so max_write bounds reads too.
  std::atomic<unsigned> read_request_max_bytes{0};
  std::atomic<unsigned> write_request_max_bytes{0};
  // The kernel's send times of requests (send_stamps.h); null: arrivals are the workers' reads.
  const SendStampTable* send_stamps = nullptr;
  // Data requests' order on the way to the model (send_order.h); null: no stamps to keep it by.
  SendOrder* send_order = nullptr;
  // The workers' CPUs (worker_cpus.h); null: every CPU the daemon has (DISKCOND_WORKER_CPUS=off).
  WorkerCpus* worker_cpus = nullptr;
  ArrivalCounts arrivals;  // how requests' arrivals were taken
  // Whether the conditioned directory's own filesystem answered FIEMAP the last time it was asked
  // (1), refused it (-1), or was not asked yet (0): place_file() needs no FIEMAP for a file
  // without blocks on it once it was asked.
  std::atomic<int> root_fiemap{0};

 private:
  static LayoutParams with_capacity(LayoutParams p, uint64_t capacity) {
    p.capacity = capacity;
    return p;
  }
};

// An open file. Owns its descriptors.
//
// `fd` is the backing file opened with the caller's flags. For an O_DIRECT open, `buffered_fd`
// is a second, buffered descriptor of the same file (same access mode, O_APPEND and O_SYNC/O_DSYNC
// kept). Reads always go through it, and writes while the mount is conditioned: the model decides
// when they complete, so the backing disk's own latency need not be paid again (it set the mount's
// 4 KiB floor on slow disks). fsync on either descriptor flushes the file, O_SYNC/O_DSYNC writes
// still reach the backing disk, and the kernel keeps the page cache coherent with direct writes
// to `fd`. `direct_align` keeps O_DIRECT's rule: reads and twin writes whose offset or size is
// not a multiple of it fail with EINVAL, as they would on the backing file. Otherwise
// buffered_fd == fd and direct_align == 0. `direct`: `fd` was opened O_DIRECT (writes to it need
// aligned buffers).
// `writeback`: opened while the mount's mode was CacheMode::kWriteBack (buffered writes become
// dirty data, close does not wait, fsync pays; docs/conditioner.md "Write-back").
// `page_cache`: its reads and writes go through the kernel's page cache (not O_DIRECT, and not
// opened while the mode was CacheMode::kNoCache, whose handles are FUSE direct_io).
struct FileHandle {
  FileHandle(int fd, int buffered_fd, uint32_t direct_align, bool direct, bool writeback,
             bool page_cache)
      : fd(fd),
        buffered_fd(buffered_fd),
        direct_align(direct_align),
        direct(direct),
        writeback(writeback),
        page_cache(page_cache) {}
  ~FileHandle();
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;

  const int fd;
  const int buffered_fd;
  const uint32_t direct_align;
  const bool direct;
  const bool writeback;
  const bool page_cache;
};

// The operation table; fuse_session_new() gets it with a Filesystem* as userdata.
fuse_lowlevel_ops filesystem_operations();

// ---- shared by the ops_*.cc files ----
Filesystem& fs_of(fuse_req_t req);
inline FileHandle& handle_of(fuse_file_info* fi) {
  return *reinterpret_cast<FileHandle*>(static_cast<uintptr_t>(fi->fh));
}
// The metadata a request must read from the pretend device before it can answer (Layout): the
// inode-table clusters of inodes the kernel did not hold, and the blocks of a directory not read
// since the kernel took it. Each read is charged to the request's ticket
// (Conditioner::begin_metadata()); a request that needed none is answered at once.
//
// Opens `name` in the directory `parent_fd` (pinned) as O_PATH, records the lookup and fills
// `e`. Returns 0 or -errno. An inode the kernel did not hold costs its inode-table read, charged
// to `reads`; with `reads` null (the request just created the entry, whose inode block ext4
// writes without reading it) it costs nothing. REQUIRES: caller credentials in effect.
int lookup_entry(Filesystem& fs, int parent_fd, const char* name, fuse_entry_param* e,
                 Ticket* reads);
// A lookup or listing in `dir` (descriptor `dir_fd`): the first since the kernel took it reads
// the directory's blocks (up to 128 KiB), where the backing directory's extents say (FIEMAP), or
// where ext4 would keep it (Layout::directory_pieces).
void read_directory_blocks(Filesystem& fs, Inode& dir, int dir_fd, Ticket& reads);
// The kernel dropped `n` lookups of `id` (forget): when it holds the inode no more, so does
// the layout's metadata cache, and the file's placement is asked again at its next open.
void forget_inode(Filesystem& fs, fuse_ino_t id, uint64_t n);
// Device pieces of [offset, offset + length) of `inode` (Layout::map; `write` allocates, and
// `*allocated` says how many bytes).
std::vector<Piece> data_pieces(Filesystem& fs, const Inode& inode, uint64_t offset, uint64_t length,
                               bool write, uint64_t* allocated = nullptr);
// Asks the backing file's extents (FIEMAP on `fd`, an open descriptor of it) when the layout
// does not know them yet; a file system without FIEMAP makes the file hashed.
// An O_DIRECT open (`direct`) makes the file one linear region instead (Layout::set_linear).
// `no_blocks`: the file has no blocks (st_blocks 0, as after a create). FIEMAP's answer for such
// a file is known once the conditioned directory's filesystem has answered (or refused) it for
// another: no located extents (or hashed), so it is not asked (a system call saved per create;
// an empty one takes 1.07 us on the project's VM).
void place_file(Filesystem& fs, const Inode& inode, int fd, bool direct, bool no_blocks = false);
// The identity of an inode in the write-back model (dirty data and journal entries).
// The same identity keys the file's placement in the layout.
inline uint64_t writeback_file_id(dev_t dev, ino_t ino) {
  return (static_cast<uint64_t>(dev) << 48) ^ static_cast<uint64_t>(ino);
}
inline uint64_t writeback_file_id(const Inode& inode) {
  return writeback_file_id(inode.dev, inode.ino);
}
// Begins a request that changes the metadata of `changed` (a directory whose entries change, or
// a file), charged with its cost: write-back mode, a journal entry (complete at once); otherwise
// one 4 KiB write at its inode's block, waited for (Conditioner::change_metadata).
// `undo`: a crashable mount's token for the change (CrashRecorder), journaled with it.
Ticket begin_metadata_change(Filesystem& fs, const Inode& changed, uint64_t undo = 0);
// Write-back mode: a new entry's own inode joins the journal too, so an fsync of the new file
// commits its creation (as on ext4). Nothing in the other modes (the parent's write covers it).
// A crashable mount (fs.crash) also records the creation of `name` in `dir_fd` (pinned), so that
// a crash before its commit removes it.
void journal_new_entry(Filesystem& fs, Ticket& t, fuse_ino_t ino, int dir_fd = -1,
                       const char* name = nullptr);
// Finish `t` (Conditioner::finish) with the error `err` (0: success) ...
void finish_err(Filesystem& fs, Ticket t, fuse_req_t req, int err);
// ... or with the entry `e` (the error `err` when it is not 0).
void finish_entry(Filesystem& fs, Ticket t, fuse_req_t req, int err, const fuse_entry_param& e);

// Operation groups (each file fills its part of the table).
void add_entry_operations(fuse_lowlevel_ops& ops);      // ops_entry.cc
void add_namespace_operations(fuse_lowlevel_ops& ops);  // ops_namespace.cc
void add_directory_operations(fuse_lowlevel_ops& ops);  // ops_directory.cc
void add_file_operations(fuse_lowlevel_ops& ops);       // ops_file.cc
void add_xattr_operations(fuse_lowlevel_ops& ops);      // ops_xattr.cc

}  // namespace diskcond::mount
