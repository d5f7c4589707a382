// Where a file's bytes live on the pretend device.
//
// The disk model seeks by address, so files are laid out in one device-like address space of
// `capacity` bytes (the backing filesystem's size): every inode gets a region starting at a
// pseudo-random, 1 MiB aligned base derived from (st_dev, st_ino), and byte `o` of the file lives
// at (base + o) mod capacity. Reading a file front to back is therefore sequential on the
// pretend device, and going from one file (or one far-apart region of a file) to another seeks,
// with a distance that is the same every time for the same pair. Metadata changes are charged as
// one small write at the base of the directory they change.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace diskcond::mount {

class AddressSpace {
 public:
  static constexpr uint64_t kRegionAlign = 1 << 20;

  // REQUIRES: capacity > 0.
  explicit AddressSpace(uint64_t capacity) : capacity_(capacity) {}

  uint64_t capacity() const { return capacity_; }
  // Base of the region of inode (dev, ino); stable across runs and mounts.
  uint64_t region_base(dev_t dev, ino_t ino) const;
  // Device address of byte `offset` of a file whose region starts at `base`.
  uint64_t address(uint64_t base, uint64_t offset) const {
    return (base % capacity_ + offset % capacity_) % capacity_;
  }

 private:
  uint64_t capacity_;
};

}  // namespace diskcond::mount
