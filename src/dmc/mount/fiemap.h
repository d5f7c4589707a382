// A file's physical extents on the backing device, from the FIEMAP ioctl.
#pragma once

#include <optional>
#include <vector>

#include "core/layout.h"

namespace diskcond::mount {

// The extents of the open file `fd` whose device address is known, in file order (not forcing
// its dirty data out: extents still in the backing file system's delayed allocation are left
// out, so the layout allocates them). At most `max_extents`; the rest stay unplaced. nullopt:
// the file system has no FIEMAP (tmpfs, most FUSE file systems, overlayfs on some kernels).
std::optional<std::vector<Extent>> file_extents(int fd, size_t max_extents = 65536);

}  // namespace diskcond::mount
