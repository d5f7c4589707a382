// TEST ONLY: a DiskControl with pretend loop devices and mounts, and real image files (so the
// commands' own checks on paths, sizes and st_dev/st_ino see what they would). Records every call
// and can fail any step once.
#pragma once

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dmc/disk/disk_control.h"

namespace diskcond::dmc {

class FakeDiskControl final : public disk::DiskControl {
 public:
  // Every call that changes something, in order: "create <path>", "attach <image>", "mkfs <dev>",
  // "mount <dev> <dir>", "autoclear <dev>", "unmount <dir>", "detach <dev>", "delete <path>".
  std::vector<std::string> calls;
  std::map<int, disk::LoopDisk> devices;  // by loop number
  // When set, the next call of that kind fails with this message.
  std::string fail_create, fail_attach, fail_mkfs, fail_mount, fail_autoclear, fail_unmount,
      fail_detach, fail_delete;
  std::string fail_unmount_of;  // unmounting this directory fails ("<dir> is busy"), every time
  std::string probed_type = "ext4";  // what probe_filesystem finds

  // A device bound to `image` as if attached earlier (by anyone).
  disk::LoopDisk& add_device(const std::string& image) {
    int n = next_++;
    disk::LoopDisk& d = devices[n];
    d.device = "/dev/loop" + std::to_string(n);
    d.device_number = makedev(7, n);
    d.image = image;
    struct stat st {};
    if (::stat(image.c_str(), &st) == 0) {
      d.image_dev = st.st_dev;
      d.image_ino = st.st_ino;
      d.size_bytes = static_cast<uint64_t>(st.st_size);
    }
    d.block_bytes = 4096;
    d.direct_io = true;
    return d;
  }

  Status create_image(const std::string& path, uint64_t bytes) override {
    calls.push_back("create " + path);
    if (!fail_create.empty()) return make_error(std::exchange(fail_create, ""));
    if (std::filesystem::exists(path)) return make_error("exists");
    std::ofstream(path).close();
    std::filesystem::resize_file(path, bytes);
    return ok_status();
  }
  Status delete_image(const std::string& path) override {
    calls.push_back("delete " + path);
    if (!fail_delete.empty()) return make_error(std::exchange(fail_delete, ""));
    return ::unlink(path.c_str()) == 0 ? ok_status() : make_error("cannot delete " + path);
  }
  Result<disk::LoopDisk> attach(const std::string& image, const disk::LoopOptions&) override {
    calls.push_back("attach " + image);
    if (!fail_attach.empty()) return make_error(std::exchange(fail_attach, ""));
    return add_device(image);
  }
  Status detach(const std::string& device) override {
    calls.push_back("detach " + device);
    if (!fail_detach.empty()) return make_error(std::exchange(fail_detach, ""));
    disk::LoopDisk* d = find(device);
    if (d == nullptr) return ok_status();  // autoclear did it
    devices.erase(std::stoi(device.substr(9)));
    return ok_status();
  }
  Status set_autoclear(const std::string& device) override {
    calls.push_back("autoclear " + device);
    if (!fail_autoclear.empty()) return make_error(std::exchange(fail_autoclear, ""));
    find(device)->autoclear = true;
    return ok_status();
  }
  Result<std::vector<disk::LoopDisk>> list() override {
    std::vector<disk::LoopDisk> out;
    for (const auto& [n, d] : devices) out.push_back(d);
    return out;
  }
  Status make_filesystem(const std::string& device, const std::string& type) override {
    calls.push_back("mkfs " + device);
    if (!fail_mkfs.empty()) return make_error(std::exchange(fail_mkfs, ""));
    return type == "ext4" ? ok_status() : make_error("ext4 only");
  }
  Result<std::string> probe_filesystem(const std::string&) override { return probed_type; }
  Status mount(const std::string& device, const std::string& dir,
               const std::string& type) override {
    calls.push_back("mount " + device + " " + dir);
    if (!fail_mount.empty()) return make_error(std::exchange(fail_mount, ""));
    find(device)->mounts.push_back({dir, type});
    return ok_status();
  }
  Status unmount(const std::string& dir) override {
    calls.push_back("unmount " + dir);
    if (!fail_unmount.empty()) return make_error(std::exchange(fail_unmount, ""));
    if (dir == fail_unmount_of) return make_error(dir + " is busy");
    for (auto it = devices.begin(); it != devices.end(); ++it) {
      auto& m = it->second.mounts;
      auto found =
          std::find_if(m.begin(), m.end(), [&](const disk::DiskMount& x) { return x.dir == dir; });
      if (found == m.end()) continue;
      m.erase(found);
      if (m.empty() && it->second.autoclear) devices.erase(it);  // the last user is gone
      return ok_status();
    }
    return make_error("not mounted");
  }

 private:
  disk::LoopDisk* find(const std::string& device) {
    for (auto& [n, d] : devices) {
      if (d.device == device) return &d;
    }
    return nullptr;
  }
  int next_ = 0;
};

}  // namespace diskcond::dmc
