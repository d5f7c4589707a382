// The DiskControl dmc uses: image files, loop devices (loop_device.h), mkfs (run_program.h),
// libblkid and mount(2).
#include <blkid/blkid.h>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/loop.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "dmc/disk/disk_control.h"
#include "dmc/disk/loop_device.h"
#include "dmc/disk/run_program.h"

namespace diskcond::disk {
namespace {

using disk::loop_device_path;

std::string errno_text(int negative_errno) {
  return std::strerror(-negative_errno);
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

uint64_t read_number(const std::string& path) {
  std::string text = read_line(path);
  return text.empty() ? 0 : std::strtoull(text.c_str(), nullptr, 10);
}

// mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo.
std::string unescape(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      int v = 0;
      bool octal = true;
      for (size_t j = 1; j <= 3; ++j) {
        char c = field[i + j];
        if (c < '0' || c > '7') octal = false;
        v = v * 8 + (c - '0');
      }
      if (octal) {
        out += static_cast<char>(v);
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

// Where the block device `rdev` is mounted, from /proc/self/mountinfo, in mount order.
std::vector<DiskMount> mounts_of(dev_t rdev) {
  std::vector<DiskMount> found;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  const std::string want = fmt::format("{}:{}", major(rdev), minor(rdev));
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, devno, root, point, word;
    fields >> id >> parent >> devno >> root >> point;
    if (devno != want) continue;
    while (fields >> word && word != "-") {
    }
    std::string type;
    fields >> type;
    found.push_back({unescape(point), type});
  }
  return found;
}

class LoopDiskControl final : public DiskControl {
 public:
  Status create_image(const std::string& path, uint64_t bytes) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return make_error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
    int rc = ::ftruncate(fd, static_cast<off_t>(bytes)) == 0 ? 0 : -errno;
    if (::close(fd) != 0 && rc == 0) rc = -errno;
    if (rc != 0) {
      ::unlink(path.c_str());
      return make_error(fmt::format("cannot size {} to {} bytes: {}", path, bytes, errno_text(rc)));
    }
    return ok_status();
  }

  Status delete_image(const std::string& path) override {
    if (::unlink(path.c_str()) != 0)
      return make_error(fmt::format("cannot delete {}: {}", path, std::strerror(errno)));
    return ok_status();
  }

  Result<LoopDisk> attach(const std::string& image, const LoopOptions& options) override {
    int flags = O_RDWR | O_CLOEXEC | (options.direct_io ? O_DIRECT : 0);
    int fd = ::open(image.c_str(), flags);
    if (fd < 0) return make_error(fmt::format("cannot open {}: {}", image, std::strerror(errno)));
    uint32_t lo_flags = options.direct_io ? LO_FLAGS_DIRECT_IO : 0;
    int number = disk::loop_attach(fd, lo_flags, options.block_bytes, image);
    ::close(fd);  // the loop device holds its own reference
    if (number < 0)
      return make_error(
          fmt::format("cannot attach {} to a loop device: {}", image, errno_text(number)));
    const std::string device = loop_device_path(number);
    auto disk = describe(number);
    if (!disk.ok()) {
      (void)detach(device);
      return disk;
    }
    if (options.direct_io && !disk->direct_io) {
      (void)detach(device);
      return make_error(fmt::format("the kernel would not do direct I/O on {} with {}-byte blocks",
                                    image, options.block_bytes));
    }
    return disk;
  }

  Status detach(const std::string& device) override {
    int number = disk::loop_number(device);
    if (number < 0) return make_error(fmt::format("'{}' is not a loop device", device));
    int rc = disk::loop_detach(device);
    if (rc < 0 && rc != -ENXIO)
      return make_error(fmt::format("cannot detach {}: {}", device, errno_text(rc)));
    // The kernel lets go of the image when the device's last user closes it.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (disk::loop_bound(number)) {
      if (std::chrono::steady_clock::now() > deadline) {
        return make_error(
            fmt::format("{} is still attached 10 s after detaching it (in use?)", device));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return ok_status();
  }

  Status set_autoclear(const std::string& device) override {
    int rc = disk::loop_set_autoclear(device);
    if (rc < 0)
      return make_error(fmt::format("cannot set autoclear on {}: {}", device, errno_text(rc)));
    return ok_status();
  }

  Result<std::vector<LoopDisk>> list() override {
    std::vector<int> numbers;
    DIR* dir = ::opendir("/sys/block");
    if (dir == nullptr)
      return make_error(fmt::format("cannot list /sys/block: {}", std::strerror(errno)));
    while (dirent* entry = ::readdir(dir)) {
      int n = disk::loop_number(std::string("/dev/") + entry->d_name);
      if (n >= 0 && disk::loop_bound(n)) numbers.push_back(n);
    }
    ::closedir(dir);
    std::sort(numbers.begin(), numbers.end());
    std::vector<LoopDisk> disks;
    for (int n : numbers) {
      auto disk = describe(n);
      if (disk.ok()) disks.push_back(std::move(disk).value());  // one detached meanwhile: skipped
    }
    return disks;
  }

  Status make_filesystem(const std::string& device, const std::string& type) override {
    if (type != "ext4")
      return make_error(fmt::format("cannot make a '{}' file system (ext4 only)", type));
    // Inode tables and the journal are written now, not by ext4lazyinit in the background after
    // the mount; 4 KiB blocks whatever the size (mke2fs would pick 1 KiB below 512 MiB, smaller
    // than the device's logical block); no discard of the fresh, sparse image.
    auto run = disk::run_program({"mkfs.ext4", "-F", "-q", "-b", "4096", "-E",
                                  "lazy_itable_init=0,lazy_journal_init=0,nodiscard", device});
    if (!run.ok())
      return make_error(fmt::format("cannot make ext4 on {}: {}", device, run.error()));
    if (run->exit_code != 0) {
      std::string why = disk::first_line(run->output);
      return make_error(fmt::format("mkfs.ext4 {} failed (exit {}){}{}", device, run->exit_code,
                                    why.empty() ? "" : ": ", why));
    }
    return ok_status();
  }

  Result<std::string> probe_filesystem(const std::string& device) override {
    blkid_probe probe = blkid_new_probe_from_filename(device.c_str());
    if (probe == nullptr)
      return make_error(fmt::format("cannot probe {}: {}", device, std::strerror(errno)));
    blkid_probe_enable_superblocks(probe, 1);
    blkid_probe_set_superblocks_flags(probe, BLKID_SUBLKS_TYPE);
    int rc = blkid_do_safeprobe(probe);
    std::string type;
    const char* value = nullptr;
    if (rc == 0 && blkid_probe_lookup_value(probe, "TYPE", &value, nullptr) == 0 &&
        value != nullptr)
      type = value;
    blkid_free_probe(probe);
    if (rc < 0)
      return make_error(fmt::format("cannot probe {}: no single file system found", device));
    return type;
  }

  Status mount(const std::string& device, const std::string& dir,
               const std::string& type) override {
    if (::mount(device.c_str(), dir.c_str(), type.c_str(), 0, nullptr) != 0) {
      return make_error(
          fmt::format("cannot mount {} ({}) on {}: {}", device, type, dir, std::strerror(errno)));
    }
    return ok_status();
  }

  Status unmount(const std::string& dir) override {
    if (::umount2(dir.c_str(), UMOUNT_NOFOLLOW) != 0) {
      int err = errno;
      if (err == EBUSY)
        return make_error(fmt::format("cannot unmount {}: files under it are in use", dir));
      return make_error(fmt::format("cannot unmount {}: {}", dir, std::strerror(err)));
    }
    return ok_status();
  }

 private:
  // What sysfs and the device say about bound loop device `number`.
  Result<LoopDisk> describe(int number) {
    const std::string sys = "/sys/block/loop" + std::to_string(number);
    LoopDisk disk;
    disk.device = loop_device_path(number);
    disk.image = read_line(sys + "/loop/backing_file");
    if (disk.image.empty() || !disk::loop_bound(number)) {
      return make_error(fmt::format("{} is not attached", disk.device));
    }
    unsigned maj = 0, min = 0;
    if (std::sscanf(read_line(sys + "/dev").c_str(), "%u:%u", &maj, &min) == 2)
      disk.device_number = makedev(maj, min);
    disk.size_bytes = read_number(sys + "/size") * 512;
    disk.block_bytes = static_cast<uint32_t>(read_number(sys + "/queue/logical_block_size"));
    disk.direct_io = read_number(sys + "/loop/dio") != 0;
    disk.autoclear = read_number(sys + "/loop/autoclear") != 0;
    disk::LoopBinding binding;
    if (disk::loop_binding(disk.device, &binding) == 0) {
      disk.image_dev = binding.backing_dev;
      disk.image_ino = binding.backing_ino;
    } else {
      struct stat st {};  // no access to the device (not root): the path will do
      if (::stat(disk.image.c_str(), &st) == 0) {
        disk.image_dev = st.st_dev;
        disk.image_ino = st.st_ino;
      }
    }
    disk.mounts = mounts_of(disk.device_number);
    return disk;
  }
};

}  // namespace

std::unique_ptr<DiskControl> make_loop_disk_control() {
  return std::make_unique<LoopDiskControl>();
}

}  // namespace diskcond::disk
