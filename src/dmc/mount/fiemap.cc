#include "dmc/mount/fiemap.h"

#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace diskcond::mount {

std::optional<std::vector<Extent>> file_extents(int fd, size_t max_extents) {
  constexpr uint32_t kBatch = 128;
  std::vector<unsigned char> storage(sizeof(fiemap) + kBatch * sizeof(fiemap_extent));
  auto* map = reinterpret_cast<fiemap*>(storage.data());
  std::vector<Extent> extents;
  uint64_t start = 0;
  for (;;) {
    *map = fiemap{};
    map->fm_start = start;
    map->fm_length = FIEMAP_MAX_OFFSET - start;
    map->fm_extent_count = kBatch;
    if (ioctl(fd, FS_IOC_FIEMAP, map) != 0) {
      if (errno == EINTR) continue;
      if (extents.empty()) return std::nullopt;
      return extents;  // what was read so far stays good
    }
    if (map->fm_mapped_extents == 0) return extents;
    for (uint32_t i = 0; i < map->fm_mapped_extents; ++i) {
      const fiemap_extent& e = map->fm_extents[i];
      const bool located = (e.fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
                                          FIEMAP_EXTENT_NOT_ALIGNED)) == 0;
      if (located && e.fe_length > 0) {
        extents.push_back(Extent{e.fe_logical, e.fe_physical, e.fe_length});
        if (extents.size() >= max_extents) return extents;
      }
      if (e.fe_flags & FIEMAP_EXTENT_LAST) return extents;
      start = e.fe_logical + e.fe_length;
    }
  }
}

}  // namespace diskcond::mount
