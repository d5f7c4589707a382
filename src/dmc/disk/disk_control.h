// The boundary between `dmc disk` (src/dmc/cli/command_disk*.cc) and the machinery that makes a
// disk of an image file: sparse image files, kernel loop devices, mkfs and mount(2). The CLI
// decides *what* to do and rolls back on failure; a DiskControl does one step at a time. Tests give
// the CLI a fake; dmc itself uses make_loop_disk_control(). It lives in the disk layer, which
// implements it, so that includes point down only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace diskcond::disk {

// One place a loop device is mounted (from /proc/self/mountinfo).
struct DiskMount {
  std::string dir;   // mount point
  std::string type;  // file system type, "ext4"
};

// One attached (bound) loop device.
struct LoopDisk {
  std::string device;       // "/dev/loop3"
  dev_t device_number = 0;  // its st_rdev
  std::string image;        // the backing file as the kernel names it (may end in " (deleted)")
  dev_t image_dev = 0;      // the backing file's st_dev and st_ino (0 when unknown)
  ino_t image_ino = 0;
  uint64_t size_bytes = 0;
  uint32_t block_bytes = 0;  // logical block size
  bool direct_io = false;    // the kernel does O_DIRECT I/O on the backing file
  bool autoclear = false;    // detaches itself when the last user closes it
  std::vector<DiskMount> mounts;
};

struct LoopOptions {
  bool direct_io = true;
  uint32_t block_bytes = 4096;  // logical block size of the device
};

class DiskControl {
 public:
  virtual ~DiskControl() = default;
  // Creates `path` as a new sparse file of `bytes` bytes (mode 0600). Fails if it exists.
  virtual Status create_image(const std::string& path, uint64_t bytes) = 0;
  virtual Status delete_image(const std::string& path) = 0;
  // Binds `image` to a free loop device (LOOP_CTL_GET_FREE, LOOP_CONFIGURE). With direct_io, fails
  // (and detaches again) when the kernel would not do direct I/O on the file.
  virtual Result<LoopDisk> attach(const std::string& image, const LoopOptions& options) = 0;
  // Unbinds `device` and waits until the kernel has let go of the image. A device that is no longer
  // bound (autoclear did it) is not an error.
  virtual Status detach(const std::string& device) = 0;
  // The device then detaches itself when its last user (the mount) closes it.
  virtual Status set_autoclear(const std::string& device) = 0;
  // Every bound loop device, in device-number order.
  virtual Result<std::vector<LoopDisk>> list() = 0;
  // mkfs.<type> on `device`; "ext4" only.
  virtual Status make_filesystem(const std::string& device, const std::string& type) = 0;
  // The file system type found on `device` ("" when none).
  virtual Result<std::string> probe_filesystem(const std::string& device) = 0;
  virtual Status mount(const std::string& device, const std::string& dir,
                       const std::string& type) = 0;
  virtual Status unmount(const std::string& dir) = 0;
};

std::unique_ptr<DiskControl> make_loop_disk_control();

}  // namespace diskcond::disk
