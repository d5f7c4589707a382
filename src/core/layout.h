// Where files and metadata live on the pretend device, and which metadata is in memory: the part
// of an ext4-like filesystem the disk model needs to price seeks and metadata reads.
//
// Pure and deterministic like DiskModel: no clock, no I/O. The mount reports what it learns
// (a file's physical extents from FIEMAP, the kernel taking or dropping an inode) and asks for
// device addresses. Thread-safe: one mutex, a leaf (nothing else is locked under it).
//
// The rules (docs/disk-model.md "Locality and metadata reads"):
//  - Block groups as in ext4: the device is cut into groups of `group_bytes`; inode `ino` lives
//    in group (ino - 1) / inodes_per_group. With flex_bg, the inode tables of `flex_groups`
//    consecutive groups sit together at the start of the first of them, `inode_bytes` per inode,
//    in inode number order: inodes of one directory (allocated together) share table blocks.
//  - Data placement: a file whose extents are known (FIEMAP of the backing file) is read and
//    written where they say. Bytes not placed yet are allocated when written, in whole blocks,
//    with ext4's goal: as far from the file's nearest placed block as they are from it in the
//    file (so a sparse file written at random keeps its offsets' distances, and an append
//    continues its extent); a file with nothing placed starts at the allocation cursor of its
//    inode's group (ext4 allocates a file's data in its inode's group, and a directory's files
//    in the directory's group). The cursor moves past every allocation at or beyond it, so files
//    written one after the other in one directory sit one after the other, as delayed
//    allocation places them. Free space is not tracked: a file that grows after another was
//    placed behind it shares blocks with it (only distances matter to the model).
//  - Hashed files: where the backing filesystem has no FIEMAP (tmpfs), byte o of a file lives at
//    (base + o) mod capacity for a base the caller derives from the file's identity.
//  - Linear files: a file opened with O_DIRECT is laid out the same way, one linear region, from
//    then on. O_DIRECT is how an application says it manages its own layout (a database, a
//    loop device's image, a benchmark): offsets in it are addresses on a device, so distances
//    between them must stay what the application made them, not what the backing allocator did.
//  - Reading unplaced bytes (a hole, or a file never placed) reads at the hashed address:
//    the model still charges it, so raw benchmarks never get a free read.
//  - Directory blocks: where the backing filesystem reports a directory's extents (FIEMAP),
//    its blocks are read where they say (ext4 puts a directory's blocks at the start of its flex
//    group, the directories made one after the other one after the other, so a tree read in the
//    order it was made reads them nearly sequentially). Without extents, a directory's blocks get
//    an address the first time they are asked for, at its flex group's directory cursor (the
//    leader group's data area, as ext4 places directories), and keep it.
//  - Metadata in memory: an inode-table block is read from the device the first time the kernel
//    takes an inode in it; ext4 reads `inode_readahead_bytes` of the table at once (its
//    inode_readahead_blks=32), and that whole cluster stays in memory while the kernel holds any
//    inode in it. When the kernel drops them all (drop_caches, memory pressure), the next one
//    costs a read again.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace diskcond {

struct LayoutParams {
  uint64_t capacity = 0;                       // bytes; REQUIRES > 0
  uint64_t group_bytes = uint64_t{128} << 20;  // ext4 with 4 KiB blocks
  uint64_t inodes_per_group = 8192;            // ext4's default inode_ratio 16 KiB
  uint64_t inode_bytes = 256;
  uint64_t flex_groups = 16;                   // ext4's flex_bg default
  uint64_t inode_readahead_bytes = 32 * 4096;  // ext4's inode_readahead_blks default
  uint64_t block_bytes = 4096;

  // The parameters of an ext4-like filesystem of `capacity` bytes with `total_inodes` inodes
  // (statfs's f_files): inodes per group from their ratio, the rest ext4's defaults.
  static LayoutParams like_ext4(uint64_t capacity, uint64_t total_inodes);
};

// A run of a file's bytes on the device.
struct Extent {
  uint64_t logical = 0;   // offset in the file
  uint64_t physical = 0;  // device address
  uint64_t length = 0;
  bool operator==(const Extent&) const = default;
};

// A device range to read or write.
struct Piece {
  uint64_t address = 0;
  uint64_t length = 0;
  bool operator==(const Piece&) const = default;
};

struct LayoutCounters {
  uint64_t files_mapped = 0;     // placement from FIEMAP
  uint64_t files_hashed = 0;     // no FIEMAP: hashed addresses
  uint64_t files_linear = 0;     // opened O_DIRECT: one linear region
  uint64_t allocated_bytes = 0;  // placed by the allocator
  uint64_t metadata_reads = 0;   // inode-table clusters read
  uint64_t directory_reads = 0;  // directories' blocks read (directory_pieces calls)
};

class Layout {
 public:
  using FileId = uint64_t;

  explicit Layout(const LayoutParams& params);
  LayoutParams params() const { return params_; }

  // Address of inode `ino`'s on-disk inode (its inode-table slot).
  uint64_t inode_address(uint64_t ino) const;
  // Start of the data area of the group holding inode `ino` (after the group's share of
  // metadata); where a directory's blocks and its files' first allocation go.
  uint64_t group_data_address(uint64_t ino) const;

  // Where the allocation state a new block changes lives, for the journal (ext4 journals both
  // when it allocates): the block bitmap of the group holding device address `address` (with
  // flex_bg, one block per group at the start of its flex group, before the inode bitmaps and
  // the tables inode_address places), and the block of the group descriptor table that
  // describes that group (64-byte descriptors, `block_bytes / 64` to a block). ext4 keeps the
  // table right after the superblock at the start of the device; this layout, which prices
  // distances and counts distinct blocks, puts it in the last blocks of group 0, clear of group
  // 0's bitmaps and tables.
  uint64_t block_bitmap_address(uint64_t address) const;
  uint64_t group_descriptor_address(uint64_t address) const;

  // Where the first `bytes` of directory `ino`'s blocks are, for reading them (counted as one
  // directory read). `extents`: the directory's extents from FIEMAP, or nullptr when the backing
  // file system has none; bytes they do not cover (and every byte without them) are at the
  // directory's allocated address (see above).
  std::vector<Piece> directory_pieces(uint64_t ino, const std::vector<Extent>* extents,
                                      uint64_t bytes);

  // Whether `file` has a placement (extents or hashed), i.e. whether the mount must ask FIEMAP.
  bool placed(FileId file) const;
  // `file` (inode `ino`) has these extents on the device (FIEMAP, any order, non-overlapping);
  // bytes outside them are unplaced.
  void set_extents(FileId file, uint64_t ino, std::vector<Extent> extents);
  // `file` has no FIEMAP: byte o lives at (base + o) mod capacity.
  void set_hashed(FileId file, uint64_t base);
  // `file` was opened O_DIRECT: byte o lives at (base + o) mod capacity from now on (no-op when
  // it already does).
  void set_linear(FileId file, uint64_t base);
  // Forgets `file`'s placement (the kernel dropped it; a later open asks FIEMAP again).
  void drop(FileId file);

  // The device pieces holding [offset, offset + length) of `file`, in file order, adjacent
  // pieces merged. `write`: unplaced bytes are allocated first (see above; `*allocated`, when
  // given, is set to how many bytes were); otherwise they are read at (hash_base + offset). A file
  // without placement is treated as hashed at hash_base.
  std::vector<Piece> map(FileId file, uint64_t hash_base, uint64_t offset, uint64_t length,
                         bool write, uint64_t* allocated = nullptr);

  // The kernel took inode `ino` (it did not hold it). Returns the inode-table read that costs,
  // or a piece of length 0 when its cluster is in memory. A `created` inode (the request made
  // it) costs no read either: its table block is written, not read (ext4 zero-fills a block
  // that holds no other inode in use; one that does is usually in memory after the lookups that
  // preceded the creation). Either way the cluster is in memory from then on; counters() counts
  // only the reads returned.
  Piece hold_inode(uint64_t ino, bool created = false);
  // The kernel dropped inode `ino` (once per hold_inode).
  void release_inode(uint64_t ino);

  LayoutCounters counters() const;

 private:
  struct File {
    bool hashed = false;  // hashed or linear
    bool linear = false;
    uint64_t base = 0;                   // hashed or linear
    uint64_t ino = 0;                    // its group's cursor allocates its data
    std::map<uint64_t, Extent> extents;  // by logical offset
  };
  // REQUIRE mu_.
  uint64_t allocate(File& f, uint64_t offset, uint64_t length);  // returns bytes allocated
  uint64_t group_of(uint64_t ino) const;
  uint64_t wrap(uint64_t address) const { return address % params_.capacity; }

  const LayoutParams params_;
  mutable std::mutex mu_;
  std::unordered_map<FileId, File> files_;
  std::unordered_map<uint64_t, uint64_t> cursors_;      // group -> next address to allocate
  std::unordered_map<uint64_t, uint64_t> dir_cursors_;  // flex group -> next directory address
  std::unordered_map<uint64_t, uint64_t> directories_;  // ino -> its blocks' address (no FIEMAP)
  std::unordered_map<uint64_t, uint64_t> clusters_;     // inode-table cluster -> inodes held
  LayoutCounters counters_;
};

}  // namespace diskcond
