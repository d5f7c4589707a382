#include "harness/integrity/op_engine.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "harness/aligned_buffer.h"
#include "posix/unique_fd.h"

namespace diskcond::harness::integrity {
namespace {

constexpr uint64_t kMaxIo = 1 << 20;
constexpr uint64_t kPage = 4096;

using Fd = posix::UniqueFd;  // owns a descriptor for the length of one step

std::string errno_text(const char* call) {
  return std::string(call) + ": " + strerror(errno);
}

// Reads up to `length` bytes at `offset`, stopping only at end of file or an error (-errno).
ssize_t read_fully(int fd, uint8_t* buf, size_t length, uint64_t offset) {
  size_t done = 0;
  while (done < length) {
    ssize_t r = pread(fd, buf + done, length - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -errno;
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(done);
}

ssize_t write_fully(int fd, const uint8_t* buf, size_t length, uint64_t offset) {
  size_t done = 0;
  while (done < length) {
    ssize_t r = pwrite(fd, buf + done, length - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return r < 0 ? -errno : static_cast<ssize_t>(done);
    done += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(done);
}

// The model's bytes of [offset, offset + length), cut at the end of the file.
std::span<const uint8_t> expected_range(const Bytes& b, uint64_t offset, uint64_t length) {
  if (offset >= b.size()) return {};
  return std::span<const uint8_t>(b).subspan(offset, std::min<uint64_t>(length, b.size() - offset));
}

// Relative weights of each operation, indexed by Op.
constexpr unsigned kWeights[] = {
    /*create*/ 3,    /*write*/ 20,     /*read*/ 15,        /*truncate*/ 5,
    /*allocate*/ 3,  /*punch*/ 4,
    /*mmap read*/ 5, /*mmap write*/ 6, /*direct write*/ 6, /*direct read*/ 5,
    /*rename*/ 4,
    /*link*/ 3,      /*unlink*/ 2,     /*fsync*/ 2,        /*fdatasync*/ 2};
static_assert(std::size(kWeights) == static_cast<size_t>(Op::kCount));

}  // namespace

const char* op_name(Op op) {
  static const char* const kNames[] = {"create",       "pwrite",      "pread",     "truncate",
                                       "fallocate",    "punch-hole",  "mmap-read", "mmap-write",
                                       "direct-write", "direct-read", "rename",    "link",
                                       "unlink",       "fsync",       "fdatasync"};
  return kNames[static_cast<size_t>(op)];
}

std::string Mismatch::describe() const {
  std::string s = "seed=" + std::to_string(seed) + " step=" + std::to_string(step) + " op=" + op +
                  " file=" + name;
  if (offset >= 0) s += " first differing offset=" + std::to_string(offset);
  return s + ": " + detail;
}

std::optional<size_t> first_difference(std::span<const uint8_t> observed,
                                       std::span<const uint8_t> expected) {
  const size_t n = std::min(observed.size(), expected.size());
  auto [o, e] = std::mismatch(observed.begin(), observed.begin() + static_cast<ptrdiff_t>(n),
                              expected.begin());
  if (o != observed.begin() + static_cast<ptrdiff_t>(n)) {
    return static_cast<size_t>(o - observed.begin());
  }
  if (observed.size() != expected.size()) return n;
  return std::nullopt;
}

OpEngine::OpEngine(EngineOptions options)
    : options_(std::move(options)), model_(options_.slots), rng_(options_.seed) {}

EngineReport OpEngine::run() {
  for (step_ = 0; step_ < options_.ops; ++step_) {
    if (options_.before_step) options_.before_step(step_);
    const Op op = pick_op();
    current_ = op;
    ++report_.op_counts[static_cast<size_t>(op)];
    report_.mismatch = step(op);
    report_.steps_done = step_ + 1;
    if (report_.mismatch) return report_;
  }
  return report_;
}

Op OpEngine::pick_op() {
  bool any = false, empty = false;
  for (size_t s = 0; s < model_.slot_count(); ++s) (model_.occupied(s) ? any : empty) = true;
  if (!any) return Op::kCreate;
  unsigned total = 0;
  for (unsigned w : kWeights) total += w;
  for (;;) {
    unsigned r = static_cast<unsigned>(rng_() % total);
    size_t i = 0;
    while (r >= kWeights[i]) r -= kWeights[i++];
    const Op op = static_cast<Op>(i);
    if ((op == Op::kCreate || op == Op::kLink) && !empty) continue;
    if (op == Op::kMmapWrite && !options_.mmap_writes) continue;
    if ((op == Op::kDirectWrite || op == Op::kDirectRead) && !options_.direct_io) continue;
    return op;
  }
}

size_t OpEngine::pick_occupied() {
  for (;;) {
    const size_t s = rng_() % model_.slot_count();
    if (model_.occupied(s)) return s;
  }
}

std::optional<size_t> OpEngine::pick_empty() {
  std::vector<size_t> empty;
  for (size_t s = 0; s < model_.slot_count(); ++s) {
    if (!model_.occupied(s)) empty.push_back(s);
  }
  if (empty.empty()) return std::nullopt;
  return empty[rng_() % empty.size()];
}

// 1 .. max bytes, log-uniform: small I/O as often as large.
uint64_t OpEngine::pick_length(uint64_t max) {
  const unsigned bits = 64 - static_cast<unsigned>(__builtin_clzll(max));
  const uint64_t cap = std::min<uint64_t>(max, uint64_t{1} << (rng_() % bits));
  return 1 + rng_() % cap;
}

Bytes OpEngine::random_bytes(size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t v = rng_();
    std::memcpy(b.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return b;
}

Mismatch OpEngine::failure(size_t slot, std::string detail, int64_t offset) const {
  return Mismatch{options_.seed, step_, op_name(current_), name(slot), offset, std::move(detail)};
}

std::optional<Mismatch> OpEngine::check_size(int fd, size_t slot) {
  struct stat st;
  if (fstat(fd, &st) != 0) return failure(slot, errno_text("fstat"));
  if (static_cast<uint64_t>(st.st_size) != model_.size(slot)) {
    return failure(slot, "size " + std::to_string(st.st_size) + ", expected " +
                             std::to_string(model_.size(slot)));
  }
  return std::nullopt;
}

std::optional<Mismatch> OpEngine::check_range(int fd, size_t slot, uint64_t offset,
                                              uint64_t length) {
  if (auto m = check_size(fd, slot)) return m;
  Bytes got(length);
  const ssize_t n = read_fully(fd, got.data(), length, offset);
  if (n < 0) return failure(slot, std::string("pread: ") + strerror(static_cast<int>(-n)));
  got.resize(static_cast<size_t>(n));
  if (auto d = first_difference(got, expected_range(model_.contents(slot), offset, length))) {
    return failure(slot,
                   "read of [" + std::to_string(offset) + ", +" + std::to_string(length) +
                       ") returned " + std::to_string(n) + " bytes that differ",
                   static_cast<int64_t>(offset + *d));
  }
  return std::nullopt;
}

std::optional<Mismatch> OpEngine::step(Op op) {
  if (op == Op::kCreate) return do_create(*pick_empty());
  const size_t slot = pick_occupied();
  switch (op) {
    case Op::kWrite:
      return do_write(slot);
    case Op::kRead:
      return do_read(slot);
    case Op::kTruncate:
      return do_truncate(slot);
    case Op::kAllocate:
      return do_fallocate(slot, false);
    case Op::kPunchHole:
      return do_fallocate(slot, true);
    case Op::kMmapRead:
      return do_mmap(slot, false);
    case Op::kMmapWrite:
      return do_mmap(slot, true);
    case Op::kDirectWrite:
      return do_direct(slot, true);
    case Op::kDirectRead:
      return do_direct(slot, false);
    case Op::kRename:
      return do_rename(slot);
    case Op::kLink:
      return do_link(slot);
    case Op::kUnlink:
      return do_unlink(slot);
    case Op::kFsync:
      return do_sync(slot, false);
    case Op::kFdatasync:
      return do_sync(slot, true);
    default:
      return std::nullopt;
  }
}

std::optional<Mismatch> OpEngine::do_create(size_t slot) {
  Fd f(open(path(slot).c_str(), O_RDWR | O_CREAT | O_EXCL, 0644));
  if (f.get() < 0) return failure(slot, errno_text("open(O_CREAT|O_EXCL)"));
  model_.create(slot);
  return check_size(f.get(), slot);
}

std::optional<Mismatch> OpEngine::do_write(size_t slot) {
  Fd f(open(path(slot).c_str(), O_RDWR));
  if (f.get() < 0) return failure(slot, errno_text("open"));
  const uint64_t length = pick_length(kMaxIo);
  // A third of the writes append (while the file is small); the rest land anywhere below
  // max_file_bytes, leaving holes when past the end.
  const bool append = rng_() % 3 == 0 && model_.size(slot) < options_.max_file_bytes;
  const uint64_t offset = append ? model_.size(slot) : rng_() % options_.max_file_bytes;
  const Bytes data = random_bytes(length);
  const ssize_t n = write_fully(f.get(), data.data(), length, offset);
  if (n != static_cast<ssize_t>(length)) {
    return failure(slot, "pwrite returned " + std::to_string(n) + " of " + std::to_string(length));
  }
  model_.write(slot, offset, data);
  return check_range(f.get(), slot, offset, length);
}

std::optional<Mismatch> OpEngine::do_read(size_t slot) {
  Fd f(open(path(slot).c_str(), O_RDONLY));
  if (f.get() < 0) return failure(slot, errno_text("open"));
  const uint64_t offset = rng_() % (model_.size(slot) + kPage);  // sometimes past the end
  return check_range(f.get(), slot, offset, pick_length(kMaxIo));
}

std::optional<Mismatch> OpEngine::do_truncate(size_t slot) {
  Fd f(open(path(slot).c_str(), O_RDWR));
  if (f.get() < 0) return failure(slot, errno_text("open"));
  const uint64_t old_size = model_.size(slot);
  const uint64_t size = rng_() % options_.max_file_bytes;
  if (ftruncate(f.get(), static_cast<off_t>(size)) != 0)
    return failure(slot, errno_text("ftruncate"));
  model_.truncate(slot, size);
  // Around the new end, and the whole grown region (it must read as zeros).
  const uint64_t lo = std::min(old_size, size) > kPage ? std::min(old_size, size) - kPage : 0;
  return check_range(f.get(), slot, lo, std::max(old_size, size) - lo + kPage);
}

std::optional<Mismatch> OpEngine::do_fallocate(size_t slot, bool punch) {
  Fd f(open(path(slot).c_str(), O_RDWR));
  if (f.get() < 0) return failure(slot, errno_text("open"));
  const uint64_t offset =
      punch ? rng_() % (model_.size(slot) + 1) : rng_() % options_.max_file_bytes;
  const uint64_t length = pick_length(kMaxIo);
  const int mode = punch ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE : 0;
  if (fallocate(f.get(), mode, static_cast<off_t>(offset), static_cast<off_t>(length)) != 0) {
    return failure(slot, errno_text(punch ? "fallocate(PUNCH_HOLE|KEEP_SIZE)" : "fallocate"));
  }
  if (punch) {
    model_.punch_hole(slot, offset, length);
  } else {
    model_.allocate(slot, offset, length);
  }
  const uint64_t lo = offset > kPage ? offset - kPage : 0;
  return check_range(f.get(), slot, lo, length + 2 * kPage);
}

std::optional<Mismatch> OpEngine::do_mmap(size_t slot, bool write) {
  Fd f(open(path(slot).c_str(), write ? O_RDWR : O_RDONLY));
  if (f.get() < 0) return failure(slot, errno_text("open"));
  const uint64_t size = model_.size(slot);
  if (size == 0) return check_size(f.get(), slot);  // nothing to map
  const uint64_t offset = rng_() % size;
  const uint64_t length = pick_length(std::min(kMaxIo, size - offset));
  const uint64_t map_start = offset / kPage * kPage;
  const size_t map_length = offset + length - map_start;
  const bool shared = write || options_.mmap_shared_reads;
  void* m = mmap(nullptr, map_length, write ? PROT_READ | PROT_WRITE : PROT_READ,
                 shared ? MAP_SHARED : MAP_PRIVATE, f.get(), static_cast<off_t>(map_start));
  if (m == MAP_FAILED) {
    return failure(slot, errno_text(shared ? "mmap(MAP_SHARED)" : "mmap(MAP_PRIVATE)"));
  }
  uint8_t* at = static_cast<uint8_t*>(m) + (offset - map_start);
  std::optional<Mismatch> result;
  if (write) {
    const Bytes data = random_bytes(length);
    std::memcpy(at, data.data(), length);
    if (msync(m, map_length, MS_SYNC) != 0) result = failure(slot, errno_text("msync"));
    model_.write(slot, offset, data);
  } else if (auto d = first_difference({at, length},
                                       expected_range(model_.contents(slot), offset, length))) {
    result = failure(slot, "mapped bytes differ", static_cast<int64_t>(offset + *d));
  }
  munmap(m, map_length);
  if (result || !write) return result;
  return check_range(f.get(), slot, offset, length);
}

std::optional<Mismatch> OpEngine::do_direct(size_t slot, bool write) {
  const uint64_t offset = rng_() % (options_.max_file_bytes / kPage) * kPage;
  const uint64_t length = (1 + rng_() % 64) * kPage;
  Fd f(open(path(slot).c_str(), O_RDWR | O_DIRECT));
  if (f.get() < 0 && errno == EINVAL) {
    report_.direct_refused = true;
    options_.direct_io = false;
    return std::nullopt;
  }
  if (f.get() < 0) return failure(slot, errno_text("open(O_DIRECT)"));
  harness::AlignedBuffer buf(length);
  if (buf.data() == nullptr) return failure(slot, "out of memory for an aligned buffer");
  auto* p = reinterpret_cast<uint8_t*>(buf.data());
  if (write) {
    const Bytes data = random_bytes(length);
    std::memcpy(p, data.data(), length);
    const ssize_t n = pwrite(f.get(), p, length, static_cast<off_t>(offset));
    if (n < 0 && errno == EINVAL && !direct_worked_) {  // refused, not failed
      report_.direct_refused = true;
      options_.direct_io = false;
      return std::nullopt;
    }
    direct_worked_ = true;
    if (n != static_cast<ssize_t>(length)) {
      return failure(slot, n < 0 ? errno_text("pwrite(O_DIRECT)")
                                 : "pwrite(O_DIRECT) returned " + std::to_string(n));
    }
    model_.write(slot, offset, data);
    // Check through a buffered descriptor: direct and buffered I/O must agree.
    Fd buffered(open(path(slot).c_str(), O_RDONLY));
    if (buffered.get() < 0) return failure(slot, errno_text("open"));
    return check_range(buffered.get(), slot, offset, length);
  }
  const ssize_t n = pread(f.get(), p, length, static_cast<off_t>(offset));
  if (n < 0 && errno == EINVAL && !direct_worked_) {
    report_.direct_refused = true;
    options_.direct_io = false;
    return std::nullopt;
  }
  if (n < 0) return failure(slot, errno_text("pread(O_DIRECT)"));
  direct_worked_ = true;
  if (auto d = first_difference({p, static_cast<size_t>(n)},
                                expected_range(model_.contents(slot), offset, length))) {
    return failure(slot, "O_DIRECT read returned " + std::to_string(n) + " bytes that differ",
                   static_cast<int64_t>(offset + *d));
  }
  return check_size(f.get(), slot);
}

std::optional<Mismatch> OpEngine::do_rename(size_t from) {
  const size_t to = rng_() % model_.slot_count();
  if (to == from || model_.same_file(from, to)) return std::nullopt;  // see ReferenceModel
  if (::rename(path(from).c_str(), path(to).c_str()) != 0) {
    return failure(from, errno_text("rename"));
  }
  model_.rename(from, to);
  if (access(path(from).c_str(), F_OK) == 0 || errno != ENOENT) {
    return failure(from, "old name still there after rename");
  }
  Fd f(open(path(to).c_str(), O_RDONLY));
  if (f.get() < 0) return failure(to, errno_text("open"));
  return check_range(f.get(), to, 0, std::min<uint64_t>(model_.size(to), kMaxIo));
}

std::optional<Mismatch> OpEngine::do_link(size_t from) {
  const size_t to = *pick_empty();
  if (::link(path(from).c_str(), path(to).c_str()) != 0) return failure(from, errno_text("link"));
  model_.link(from, to);
  // A write through the new name must be visible through the old one.
  Fd via_new(open(path(to).c_str(), O_RDWR));
  if (via_new.get() < 0) return failure(to, errno_text("open"));
  const uint64_t offset = rng_() % (model_.size(to) + 1);
  const Bytes data = random_bytes(pick_length(kPage));
  if (write_fully(via_new.get(), data.data(), data.size(), offset) !=
      static_cast<ssize_t>(data.size())) {
    return failure(to, errno_text("pwrite"));
  }
  model_.write(to, offset, data);
  if (auto m = check_whole(options_.dir, from)) return m;
  return check_whole(options_.dir, to);
}

std::optional<Mismatch> OpEngine::do_unlink(size_t slot) {
  if (::unlink(path(slot).c_str()) != 0) return failure(slot, errno_text("unlink"));
  model_.unlink(slot);
  if (access(path(slot).c_str(), F_OK) == 0 || errno != ENOENT) {
    return failure(slot, "name still there after unlink");
  }
  return std::nullopt;
}

std::optional<Mismatch> OpEngine::do_sync(size_t slot, bool data_only) {
  Fd f(open(path(slot).c_str(), O_RDWR));
  if (f.get() < 0) return failure(slot, errno_text("open"));
  if ((data_only ? fdatasync(f.get()) : fsync(f.get())) != 0) {
    return failure(slot, errno_text(data_only ? "fdatasync" : "fsync"));
  }
  return check_size(f.get(), slot);
}

std::optional<Mismatch> OpEngine::check_whole(const std::string& root, size_t slot) const {
  const std::string p = root + "/" + name(slot);
  Fd f(open(p.c_str(), O_RDONLY));
  if (f.get() < 0) return failure(slot, errno_text(("open " + p).c_str()));
  const Bytes& want = model_.contents(slot);
  Bytes got(want.size() + kPage);  // room to notice extra bytes
  const ssize_t n = read_fully(f.get(), got.data(), got.size(), 0);
  if (n < 0) return failure(slot, std::string("read ") + p + ": " + strerror(static_cast<int>(-n)));
  got.resize(static_cast<size_t>(n));
  if (auto d = first_difference(got, want)) {
    return failure(slot,
                   p + " differs from the reference (" + std::to_string(n) + " bytes read, " +
                       std::to_string(want.size()) + " expected)",
                   static_cast<int64_t>(*d));
  }
  return std::nullopt;
}

std::optional<Mismatch> OpEngine::verify_all(const std::string& root) const {
  auto m = verify_names(root);
  if (m) m->op = "final-verify";
  return m;
}

std::optional<Mismatch> OpEngine::verify_names(const std::string& root) const {
  for (size_t s = 0; s < model_.slot_count(); ++s) {
    const std::string p = root + "/" + name(s);
    struct stat st;
    if (!model_.occupied(s)) {
      if (lstat(p.c_str(), &st) == 0) return failure(s, p + " exists but should not");
      continue;
    }
    if (auto m = check_whole(root, s)) return m;
    for (size_t t = 0; t < s; ++t) {
      struct stat other;
      if (model_.same_file(s, t) &&
          (stat(p.c_str(), &st) != 0 || stat((root + "/" + name(t)).c_str(), &other) != 0 ||
           st.st_ino != other.st_ino)) {
        return failure(s, "not a hard link of " + name(t) + " any more");
      }
    }
  }
  return std::nullopt;
}

}  // namespace diskcond::harness::integrity
