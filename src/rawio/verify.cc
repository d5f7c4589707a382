#include "rawio/verify.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/clock.h"
#include "posix/unique_fd.h"
#include "rawio/offsets.h"
#include "rawio/write_pattern.h"

namespace diskcond::rawio {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, FreeDeleter>;

Buffer aligned(size_t bytes, size_t alignment) {
  void* p = nullptr;
  if (posix_memalign(&p, std::max<size_t>(alignment, 4096), bytes) != 0) return nullptr;
  return Buffer(static_cast<uint8_t*>(p));
}

}  // namespace

Result<VerifyResult> verify_written(const Target& target, const TestSpec& spec,
                                    std::span<const uint64_t> issued_per_worker) {
  VerifyResult result;
  const int64_t start = monotonic_now_ns();
  std::vector<uint64_t> offsets;
  for (unsigned w = 0; w < issued_per_worker.size(); ++w) {
    OffsetGenerator gen(is_random(spec.kind), spec.area_bytes, spec.transfer_bytes, spec.workers, w,
                        spec.seed);
    for (uint64_t i = 0; i < issued_per_worker[w]; ++i) offsets.push_back(gen.next());
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());

  int flags = O_RDONLY | O_CLOEXEC | (target.direct ? O_DIRECT : 0);
  posix::UniqueFd fd(::open(target.io_path.c_str(), flags));
  if (!fd.valid())
    return make_error(fmt::format("--verify: cannot open {}: {}", target.io_path, strerror(errno)));
  if (!target.direct) {
    // Make the reads come from the storage, not from the page cache the writes filled.
    result.through_page_cache = true;
    (void)::fsync(fd.get());
    (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  }
  const uint32_t length = spec.transfer_bytes;
  Buffer base = aligned(length, target.sector_bytes), expected = aligned(length, 4096),
         read_back = aligned(length, target.sector_bytes);
  if (!base || !expected || !read_back) return make_error("--verify: cannot allocate buffers");
  fill_write_base(base.get(), length, spec.seed);
  for (uint64_t offset : offsets) {
    ssize_t n = ::pread(fd.get(), read_back.get(), length, static_cast<off_t>(offset));
    if (n < 0)
      return make_error(fmt::format("--verify: read of {} bytes at offset {} of {} failed: {}",
                                    length, offset, target.io_path, strerror(errno)));
    if (static_cast<uint32_t>(n) != length)
      return make_error(fmt::format("--verify: short read at offset {} of {}: {} of {} bytes",
                                    offset, target.io_path, n, length));
    memcpy(expected.get(), base.get(), length);
    stamp_sectors(expected.get(), offset, length, spec.seed);
    ++result.transfers_checked;
    if (memcmp(expected.get(), read_back.get(), length) == 0) continue;
    if (result.mismatched++ == 0) {
      uint32_t i = 0;
      while (expected.get()[i] == read_back.get()[i]) ++i;
      result.first_bad_offset = offset;
      result.first_bad =
          fmt::format("byte {} of the transfer at offset {}: wrote 0x{:02x}, read 0x{:02x}", i,
                      offset, expected.get()[i], read_back.get()[i]);
    }
  }
  result.elapsed_ns = monotonic_now_ns() - start;
  return result;
}

}  // namespace diskcond::rawio
