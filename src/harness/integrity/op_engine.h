// A seeded, reproducible random file-operation engine that checks a filesystem against a
// ReferenceModel after every step. One engine is one client: it owns the names
// "<prefix>0" .. "<prefix><slots-1>" in `dir` and nothing else touches them (except a test that
// corrupts them on purpose), so the model is deterministic even with other clients running
// concurrently in the same directory. No exceptions; every failure is a Mismatch.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>

#include "harness/integrity/reference_model.h"

namespace diskcond::harness::integrity {

enum class Op {
  kCreate,
  kWrite,
  kRead,
  kTruncate,
  kAllocate,
  kPunchHole,
  kMmapRead,
  kMmapWrite,
  kDirectWrite,
  kDirectRead,
  kRename,
  kLink,
  kUnlink,
  kFsync,
  kFdatasync,
  kCount
};
const char* op_name(Op op);

struct EngineOptions {
  std::string dir;           // where the files live (a conditioned mount or a plain directory)
  std::string prefix = "f";  // this client's names: prefix + slot number
  size_t slots = 6;
  uint64_t seed = 1;
  uint64_t ops = 1000;
  uint64_t max_file_bytes = 2 << 20;  // offsets and truncate sizes stay below this
  bool mmap_writes = true;            // MAP_SHARED writable mappings + msync
  bool mmap_shared_reads = true;      // mmap reads map MAP_SHARED; false: MAP_PRIVATE
  bool direct_io = true;              // O_DIRECT aligned I/O; turned off for good when the first
                                      // O_DIRECT open or I/O fails with EINVAL (report says so)
  // Called before each step (0-based); tests use it to corrupt files behind the engine's back.
  std::function<void(uint64_t step)> before_step;
};

// What went wrong, with everything needed to reproduce it: rerun with the same seed and options.
struct Mismatch {
  uint64_t seed = 0;
  uint64_t step = 0;  // 0-based step; for op "final-verify", the steps that were run
  std::string op;
  std::string name;     // file name within dir
  int64_t offset = -1;  // first differing byte offset in the file, -1 if not a data check
  std::string detail;
  std::string describe() const;
};

struct EngineReport {
  uint64_t steps_done = 0;
  uint64_t op_counts[static_cast<size_t>(Op::kCount)] = {};
  bool direct_refused = false;       // the filesystem refused O_DIRECT with EINVAL (then skipped)
  std::optional<Mismatch> mismatch;  // the first one; the engine stops there
};

// The index of the first byte where `observed` differs from `expected`, counting a length
// difference as a difference at the shorter length; nullopt when equal.
std::optional<size_t> first_difference(std::span<const uint8_t> observed,
                                       std::span<const uint8_t> expected);

class OpEngine {
 public:
  explicit OpEngine(EngineOptions options);

  // Runs options.ops steps, checking each; stops at the first mismatch.
  EngineReport run();
  // Compares every slot's name under `root` (the mounted dir, or the backing dir after stop)
  // byte for byte with the model: occupied names must read back exactly, empty ones must not
  // exist, hard links must share an inode.
  std::optional<Mismatch> verify_all(const std::string& root) const;

  const ReferenceModel& model() const { return model_; }
  ReferenceModel& mutable_model() { return model_; }  // for the checker's self-test

 private:
  std::optional<Mismatch> step(Op op);
  Op pick_op();
  size_t pick_occupied();
  std::optional<size_t> pick_empty();
  uint64_t pick_length(uint64_t max);
  Bytes random_bytes(size_t n);
  std::string name(size_t slot) const { return options_.prefix + std::to_string(slot); }
  std::string path(size_t slot) const { return options_.dir + "/" + name(slot); }
  // Reads [offset, offset + length) of `fd` and compares with the model's bytes of `slot`
  // (shorter at the end of file), and fstat's size with the model's size.
  std::optional<Mismatch> check_range(int fd, size_t slot, uint64_t offset, uint64_t length);
  std::optional<Mismatch> check_size(int fd, size_t slot);
  std::optional<Mismatch> verify_names(const std::string& root) const;
  std::optional<Mismatch> check_whole(const std::string& root, size_t slot) const;
  Mismatch failure(size_t slot, std::string detail, int64_t offset = -1) const;

  std::optional<Mismatch> do_create(size_t slot);
  std::optional<Mismatch> do_write(size_t slot);
  std::optional<Mismatch> do_read(size_t slot);
  std::optional<Mismatch> do_truncate(size_t slot);
  std::optional<Mismatch> do_fallocate(size_t slot, bool punch);
  std::optional<Mismatch> do_mmap(size_t slot, bool write);
  std::optional<Mismatch> do_direct(size_t slot, bool write);
  std::optional<Mismatch> do_rename(size_t from);
  std::optional<Mismatch> do_link(size_t from);
  std::optional<Mismatch> do_unlink(size_t slot);
  std::optional<Mismatch> do_sync(size_t slot, bool data_only);

  EngineOptions options_;
  ReferenceModel model_;
  std::mt19937_64 rng_;
  uint64_t step_ = 0;
  bool direct_worked_ = false;  // after one O_DIRECT success, EINVAL is a failure
  Op current_ = Op::kCreate;
  EngineReport report_;
};

}  // namespace diskcond::harness::integrity
