#include "core/profile.h"

#include <fmt/format.h>
#include <strings.h>

#include <array>

#include "core/units.h"

namespace diskcond {

std::string_view to_string(DiskType t) { return t == DiskType::kHDD ? "HDD" : "SSD"; }

Result<DiskType> parse_disk_type(std::string_view text) {
  std::string s(text);
  if (strcasecmp(s.c_str(), "SSD") == 0) return DiskType::kSSD;
  if (strcasecmp(s.c_str(), "HDD") == 0) return DiskType::kHDD;
  return make_error(fmt::format("invalid disk type '{}' (use SSD or HDD)", text));
}

Status validate(const Profile& p) {
  constexpr int64_t kMaxTime = 60 * kNsPerSec;
  constexpr uint64_t kMaxCommand = 1024 * kGiB;
  if (p.name.empty()) return make_error("profile name is empty");
  // `dmc list` prints one name per line; a newline or an escape sequence in a name would break it.
  for (char c : p.name) {
    if (static_cast<unsigned char>(c) < 32 || c == 127) {
      return make_error("profile name has a control character (a newline, a tab or the like)");
    }
  }
  if (p.access_time_ns < 0 || p.access_time_ns > kMaxTime) {
    return make_error(fmt::format("access time {} ns is out of range (0 to 60 s)", p.access_time_ns));
  }
  if (p.queue_depth < 1 || p.queue_depth > 65536) {
    return make_error(fmt::format("queue depth {} is out of range (1 to 65536)", p.queue_depth));
  }
  if (p.max_read_bytes > kMaxCommand || p.max_write_bytes > kMaxCommand) {
    return make_error("max read/write bytes is out of range (0 to 1 TiB)");
  }
  if ((p.max_read_bytes != 0 && p.max_read_bytes < kSectorBytes) ||
      (p.max_write_bytes != 0 && p.max_write_bytes < kSectorBytes)) {
    return make_error("max read/write bytes must be 0 (no limit) or at least 512");
  }
  if (p.spinup_ns < 0 || p.spinup_ns > kMaxTime || p.spinup_idle_ns < 0) {
    return make_error("spin-up time is out of range (0 to 60 s)");
  }
  return ok_status();
}

Profile profile_defaults(DiskType type) {
  Profile p;
  p.type = type;
  p.queue_depth = 32;
  p.max_read_bytes = p.max_write_bytes = (type == DiskType::kHDD ? 16 : 32) * kMiB;
  p.max_read_segments = p.max_write_segments = 128;
  return p;
}

namespace {

constexpr int64_t us(int64_t v) { return v * kNsPerUs; }
constexpr uint64_t mbps(uint64_t v) { return v * kMiB; }

// Profiles 0, 3 and 7 carry the values macOS publishes. The others are diskcond's own choice from
// their hardware class; docs/profiles.md explains each value.
const std::array<Profile, 8> kBuiltins = {{
    {"Faulty 5400 HDD", DiskType::kHDD, us(52222), mbps(50), mbps(50), 16, 16 * kMiB, 16 * kMiB, 128, 128},
    {"5400 HDD", DiskType::kHDD, us(17000), mbps(100), mbps(100), 32, 16 * kMiB, 16 * kMiB, 128, 128},
    {"7200 HDD", DiskType::kHDD, us(12500), mbps(150), mbps(150), 32, 16 * kMiB, 16 * kMiB, 128, 128},
    {"Slow SSD", DiskType::kSSD, us(100), mbps(250), mbps(125), 32, 32 * kMiB, 32 * kMiB, 64, 64},
    {"SATA II SSD", DiskType::kSSD, us(60), mbps(270), mbps(230), 32, 32 * kMiB, 32 * kMiB, 128, 128},
    {"SATA III SSD", DiskType::kSSD, us(30), mbps(520), mbps(480), 32, 32 * kMiB, 32 * kMiB, 128, 128},
    {"PCIe 2 SSD", DiskType::kSSD, us(10), mbps(1536), mbps(1024), 128, 64 * kMiB, 64 * kMiB, 256, 256},
    {"PCIe 3 SSD", DiskType::kSSD, us(3), mbps(3072), mbps(2560), 256, 64 * kMiB, 64 * kMiB, 256, 256},
}};

}  // namespace

std::span<const Profile> builtin_profiles() { return kBuiltins; }

}  // namespace diskcond
