// Thin wrappers of the kernel's loop-device interface (<linux/loop.h>): every function returns 0
// (or a value >= 0) on success and -errno on failure, so errno is read in one place.
//
// Why the ioctls and not losetup(8): LOOP_CTL_GET_FREE + LOOP_CONFIGURE bind a device in one call
// with its flags and block size (no window in which the device exists with other settings, no
// parsing of another program's output), and LOOP_CONFIGURE returns EBUSY when another process
// took the same free device first, so the race is a retry, not a mix-up.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace diskcond::disk {

inline constexpr const char* kLoopControl = "/dev/loop-control";

// "/dev/loop<n>".
std::string loop_device_path(int number);

struct LoopBinding {
  dev_t backing_dev = 0;  // st_dev and st_ino of the backing file
  ino_t backing_ino = 0;
  uint32_t flags = 0;  // LO_FLAGS_*
};

// Binds the open file `backing_fd` to a free loop device with `flags` (LO_FLAGS_DIRECT_IO ...)
// and logical block size `block_bytes`; `name` is recorded as the file name. Retries when another
// process takes the free device first. Returns the device number or -errno.
int loop_attach(int backing_fd, uint32_t flags, uint32_t block_bytes, const std::string& name);

// LOOP_CLR_FD. -ENXIO when the device is not bound.
int loop_detach(const std::string& device);

// LOOP_GET_STATUS64. -ENXIO when the device is not bound.
int loop_binding(const std::string& device, LoopBinding* out);

// Adds LO_FLAGS_AUTOCLEAR (LOOP_SET_STATUS64).
int loop_set_autoclear(const std::string& device);

// True while /sys/block/loop<n>/loop exists, i.e. the device is bound.
bool loop_bound(int number);

// The number in "/dev/loop<n>", or -1.
int loop_number(const std::string& device);

}  // namespace diskcond::disk
