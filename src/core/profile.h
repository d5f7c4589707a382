// A disk profile: what a conditioned mount pretends to be. Field names and meanings follow
// macOS dmc (see docs/profiles.md). Throughputs are bytes per second; 0 means unlimited.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"

namespace diskcond {

enum class DiskType { kSSD, kHDD };

std::string_view to_string(DiskType t);
Result<DiskType> parse_disk_type(std::string_view text);  // "SSD" / "HDD", any case

struct Profile {
  std::string name;
  DiskType type = DiskType::kSSD;
  int64_t access_time_ns = 0;        // SSD: paid by every command; HDD: mean of a random seek
  uint64_t read_bytes_per_sec = 0;   // 0 = unlimited
  uint64_t write_bytes_per_sec = 0;  // 0 = unlimited
  uint32_t queue_depth = 1;          // commands in service at once (HDD: one actuator anyway)
  uint64_t max_read_bytes = 0;       // larger reads are split; 0 = no limit
  uint64_t max_write_bytes = 0;
  uint32_t max_read_segments = 0;  // reported like macOS; not part of the delay
  uint32_t max_write_segments = 0;
  // HDD only: after this long idle, the next command first waits spinup_ns. 0 disables.
  int64_t spinup_idle_ns = 0;
  int64_t spinup_ns = 0;
  // Latency spread: each piece's service time is multiplied by a lognormal factor with mean 1,
  // so the mean throughput stays the profile's, whose 99th percentile is latency_tail_milli /
  // 1000 times its median. 0 = none: every piece takes exactly the model's time (the built-in
  // profiles). The factors come from latency_seed and the piece's sequence number, so the same
  // commands in the same order take the same times.
  uint32_t latency_tail_milli = 0;
  uint32_t latency_seed = 0;
  // The pretend disk's size: a conditioned directory reports it in statfs and fails writes past
  // it with ENOSPC. 0 = the backing file system's (the built-in profiles).
  uint64_t capacity_bytes = 0;
  // An empirical latency distribution instead of the lognormal tail (core/latency_table.h):
  // "quantile:multiplier,..." such as "0.5:0.9,0.99:3,1:8", normalized to mean 1 and drawn with
  // latency_seed. "" = none. A string, not a quantity: each form of a profile handles it itself,
  // like the name (profile files and JSON: "latency_table").
  std::string latency_table;

  bool operator==(const Profile&) const = default;
};

// Whether the profile makes any command take time: an access time or a throughput limit. A
// profile with neither ("SSD 0 0 0") is conditioning off: the mount adds nothing of its own.
inline bool charges_time(const Profile& p) {
  return p.access_time_ns > 0 || p.read_bytes_per_sec > 0 || p.write_bytes_per_sec > 0;
}

// Checks each field's range (profile_fields.h: queue depth 1 to 65536, access time 0 to 60 s, ...)
// and that the name is non-empty and free of control characters. Errors name the field.
Status validate(const Profile& p);

// The values a profile takes for the fields it leaves out (profile_fields.h), one set for
// `dmc configure` and profile files alike (docs/profiles.md): queue depth 32, largest command 16
// MiB (HDD) or 32 MiB (SSD), 128 segments, as the built-in 5400/7200 HDDs and SATA SSDs; no
// spin-up. The name is empty; access time and throughputs are 0 (unlimited).
Profile profile_defaults(DiskType type);

// The eight built-in profiles, in macOS order (index 0 = "Faulty 5400 HDD").
std::span<const Profile> builtin_profiles();

}  // namespace diskcond
