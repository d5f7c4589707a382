#include "rawio/interface_limit.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <regex>

namespace diskcond::rawio {
namespace {

namespace fs = std::filesystem;

std::string read_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::optional<double> leading_number(const std::string& text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || !(value > 0)) return std::nullopt;
  return value;
}

constexpr long kTmpfsMagic = 0x01021994;
constexpr long kRamfsMagic = 0x858458f6;

}  // namespace

std::optional<double> pcie_bytes_per_sec(const std::string& speed, const std::string& width) {
  auto gt = leading_number(speed);
  auto lanes = leading_number(width);
  if (!gt || !lanes || speed.find("GT/s") == std::string::npos) return std::nullopt;
  const double encoding = *gt < 8 ? 8.0 / 10 : 128.0 / 130;
  return *gt * 1e9 * encoding / 8 * *lanes;
}

std::optional<double> sata_bytes_per_sec(const std::string& spd) {
  auto gb = leading_number(spd);
  if (!gb || spd.find("Gb/s") == std::string::npos) return std::nullopt;
  return *gb * 1e9 * 8 / 10 / 8;
}

InterfaceLimit block_device_limit(dev_t rdev, const std::string& sysfs) {
  InterfaceLimit limit;
  std::error_code ec;
  fs::path dev = fs::canonical(
      fs::path(sysfs) / "dev/block" / fmt::format("{}:{}", major(rdev), minor(rdev)), ec);
  if (ec) return limit;
  if (fs::exists(dev / "partition")) dev = dev.parent_path();  // a partition: its disk's queue
  limit.rotational = read_line(dev / "queue/rotational") == "1";
  // NVMe: the namespace's controller's PCI device has the link.
  const fs::path pci = dev / "device/device";
  if (fs::exists(pci / "current_link_speed")) {
    const std::string speed = read_line(pci / "current_link_speed");
    const std::string width = read_line(pci / "current_link_width");
    if (auto bound = pcie_bytes_per_sec(speed, width)) {
      limit.bytes_per_sec = *bound;
      limit.what = fmt::format("its PCIe link ({} x{})", speed, width);
      return limit;
    }
  }
  // SATA: the ATA port in the device's path names its link.
  std::smatch m;
  const std::string path = dev.string();
  if (std::regex_search(path, m, std::regex("/ata([0-9]+)/"))) {
    const std::string spd =
        read_line(fs::path(sysfs) / "class/ata_link" / ("link" + m[1].str()) / "sata_spd");
    if (auto bound = sata_bytes_per_sec(spd)) {
      limit.bytes_per_sec = *bound;
      limit.what = fmt::format("its SATA link ({})", spd);
    }
  }
  return limit;
}

InterfaceLimit file_limit(const std::string& path, const std::string& sysfs) {
  InterfaceLimit limit;
  fs::path at = path;
  std::error_code ec;
  if (!fs::exists(at, ec)) at = at.parent_path().empty() ? fs::path(".") : at.parent_path();
  struct statfs sfs {};
  if (::statfs(at.c_str(), &sfs) == 0 && (static_cast<long>(sfs.f_type) == kTmpfsMagic ||
                                          static_cast<long>(sfs.f_type) == kRamfsMagic)) {
    limit.memory_backed = true;
    limit.what = "tmpfs or ramfs";
    return limit;
  }
  struct stat st {};
  if (::stat(at.c_str(), &st) != 0 || major(st.st_dev) == 0) return limit;
  return block_device_limit(st.st_dev, sysfs);
}

}  // namespace diskcond::rawio
