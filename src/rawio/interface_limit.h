// What the target's interface could carry at most, from what Linux says about it in sysfs, so
// that a result beyond it can be called out (a cache served it, or the figure is wrong). Only
// simple, well-known bounds: a PCIe link's speed times its width (NVMe), a SATA link's speed, a
// rotating disk's seek rate, and file systems with no storage under them at all.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace diskcond::rawio {

struct InterfaceLimit {
  double bytes_per_sec = 0;    // the link's payload bound; 0 when unknown
  std::string what;            // "a PCIe 3.0 x4 link", "a 6.0 Gb/s SATA link"
  bool rotational = false;     // queue/rotational is 1
  bool memory_backed = false;  // tmpfs or ramfs: no storage under the file
};

// The payload bytes per second of a PCIe link from sysfs's current_link_speed ("8.0 GT/s PCIe")
// and current_link_width ("4"): 8b/10b encoding below 8 GT/s, 128b/130b from it. nullopt when
// the text is not understood.
std::optional<double> pcie_bytes_per_sec(const std::string& speed, const std::string& width);
// A SATA link's payload from sata_spd ("6.0 Gb/s"; 8b/10b): 600 MB/s for 6.0. nullopt otherwise.
std::optional<double> sata_bytes_per_sec(const std::string& spd);

// The limit for block device `rdev` (a partition counts as its disk), read under `sysfs`.
InterfaceLimit block_device_limit(dev_t rdev, const std::string& sysfs = "/sys");
// The limit for a file at `path` (or a directory target's test file): its file system's block
// device's, or memory_backed for tmpfs and ramfs; unknown for others without one (FUSE, NFS).
InterfaceLimit file_limit(const std::string& path, const std::string& sysfs = "/sys");

}  // namespace diskcond::rawio
