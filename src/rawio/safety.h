// Safety: whether rawio may write to a target. Write tests destroy data, so they are refused on
// a block device that is mounted, is held by another device (dm, md, ...), has partitions, or
// carries a file system or partition table signature, and on any regular file rawio did not make,
// unless a --force-write option names that exact device or file. Read tests are never refused.
#pragma once

#include <string>
#include <vector>

#include "rawio/target.h"

namespace diskcond::rawio {

struct WriteVerdict {
  bool allowed = true;
  bool forced = false;  // allowed only because --force-write named the target
  std::string reason;   // why not, in one line, when !allowed
};

// What the checks found about a block device; empty strings mean "nothing found".
struct DeviceUse {
  std::string mounted_at;  // a mount point using the device
  std::string holders;     // e.g. "dm-0"
  std::string partitions;  // e.g. "sdb1 sdb2"
  std::string signature;   // e.g. "ext4 file system", "gpt partition table"
};

// Looks the device up in /proc/self/mountinfo (libmount), /sys/dev/block/M:N/{holders,*/partition}
// and probes it with libblkid. Reads only.
DeviceUse inspect_device_use(const Target& device);

// True if `forced` names the same file as `target` (same device number for block devices, same
// inode for files), however the path is spelled.
bool names_target(const std::string& forced, const Target& target);

// The verdict for write tests on `target`, given the paths named by --force-write.
WriteVerdict check_write_allowed(const Target& target, const std::vector<std::string>& forced);

}  // namespace diskcond::rawio
