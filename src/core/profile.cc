#include "core/profile.h"

#include <fmt/format.h>
#include <strings.h>

#include <array>

#include "core/latency_table.h"
#include "core/profile_fields.h"
#include "core/units.h"

namespace diskcond {

std::string_view to_string(DiskType t) {
  return t == DiskType::kHDD ? "HDD" : "SSD";
}

Result<DiskType> parse_disk_type(std::string_view text) {
  std::string s(text);
  if (strcasecmp(s.c_str(), "SSD") == 0) return DiskType::kSSD;
  if (strcasecmp(s.c_str(), "HDD") == 0) return DiskType::kHDD;
  return make_error(fmt::format("invalid disk type '{}' (use SSD or HDD)", text));
}

Status validate(const Profile& p) {
  if (p.name.empty()) return make_error("profile name is empty");
  // `dmc list` prints one name per line; a newline or an escape sequence in a name would break it.
  for (char c : p.name) {
    if (static_cast<unsigned char>(c) < 32 || c == 127) {
      return make_error("profile name has a control character (a newline, a tab or the like)");
    }
  }
  for (const ProfileField& field : profile_fields()) {
    if (Status s = check_field(field, p); !s.ok()) return s;
  }
  if (!p.latency_table.empty()) {
    if (auto table = parse_latency_table(p.latency_table); !table.ok()) return Error{table.error()};
    if (p.latency_tail_milli > 1000)
      return make_error("a profile gives latency_tail or latency_table, not both");
  }
  return ok_status();
}

Profile profile_defaults(DiskType type) {
  Profile p;
  p.type = type;
  for (const ProfileField& field : profile_fields()) {
    set_field(field, p, type == DiskType::kHDD ? field.default_hdd : field.default_ssd);
  }
  return p;
}

namespace {

constexpr int64_t us(int64_t v) {
  return v * kNsPerUs;
}
constexpr uint64_t mbps(uint64_t v) {
  return v * kMiB;
}

// Profiles 0, 3 and 7 carry the values macOS publishes. The others are diskcond's own choice from
// their hardware class; docs/profiles.md explains each value.
const std::array<Profile, 8> kBuiltins = {{
    {"Faulty 5400 HDD", DiskType::kHDD, us(52222), mbps(50), mbps(50), 16, 16 * kMiB, 16 * kMiB,
     128, 128},
    {"5400 HDD", DiskType::kHDD, us(17000), mbps(100), mbps(100), 32, 16 * kMiB, 16 * kMiB, 128,
     128},
    {"7200 HDD", DiskType::kHDD, us(12500), mbps(150), mbps(150), 32, 16 * kMiB, 16 * kMiB, 128,
     128},
    {"Slow SSD", DiskType::kSSD, us(100), mbps(250), mbps(125), 32, 32 * kMiB, 32 * kMiB, 64, 64},
    {"SATA II SSD", DiskType::kSSD, us(60), mbps(270), mbps(230), 32, 32 * kMiB, 32 * kMiB, 128,
     128},
    {"SATA III SSD", DiskType::kSSD, us(30), mbps(520), mbps(480), 32, 32 * kMiB, 32 * kMiB, 128,
     128},
    {"PCIe 2 SSD", DiskType::kSSD, us(10), mbps(1536), mbps(1024), 128, 64 * kMiB, 64 * kMiB, 256,
     256},
    {"PCIe 3 SSD", DiskType::kSSD, us(3), mbps(3072), mbps(2560), 256, 64 * kMiB, 64 * kMiB, 256,
     256},
}};

}  // namespace

std::span<const Profile> builtin_profiles() {
  return kBuiltins;
}

}  // namespace diskcond
