#include "dmc/mount/machine_writeback.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

namespace diskcond::mount {
namespace {

std::optional<uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  uint64_t v = 0;
  if (!(in >> v)) return std::nullopt;
  return v;
}

// Sum of the named /proc/meminfo fields, in bytes; nullopt unless every one was found.
std::optional<uint64_t> dirtyable_memory(const std::string& meminfo) {
  std::ifstream in(meminfo);
  uint64_t free_kb = 0, active_kb = 0, inactive_kb = 0;
  int found = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    uint64_t kb = 0;
    if (!(fields >> key >> kb)) continue;
    if (key == "MemFree:") free_kb = kb, found |= 1;
    if (key == "Active(file):") active_kb = kb, found |= 2;
    if (key == "Inactive(file):") inactive_kb = kb, found |= 4;
  }
  if (found != 7) return std::nullopt;
  return (free_kb + active_kb + inactive_kb) * 1024;
}

}  // namespace

WritebackParams machine_writeback_params(uint64_t capacity, const std::string& proc) {
  WritebackParams p;
  const std::string vm = proc + "/sys/vm/";
  if (auto v = read_number(vm + "dirty_background_ratio")) p.dirty_background_ratio = *v;
  if (auto v = read_number(vm + "dirty_background_bytes")) p.dirty_background_bytes = *v;
  if (auto v = read_number(vm + "dirty_ratio")) p.dirty_ratio = *v;
  if (auto v = read_number(vm + "dirty_bytes")) p.dirty_bytes = *v;
  if (auto v = read_number(vm + "dirty_expire_centisecs")) p.expire_ns = *v * 10'000'000;
  if (auto v = read_number(vm + "dirty_writeback_centisecs")) {
    p.writeback_interval_ns = *v * 10'000'000;
  }
  if (auto v = dirtyable_memory(proc + "/meminfo")) p.dirtyable_memory_bytes = *v;
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  p.journal_bytes = std::clamp<uint64_t>(capacity / 32 / kMiB * kMiB, kMiB, 128 * kMiB);
  p.journal_address = capacity / 2 / kMiB * kMiB;
  return p;
}

}  // namespace diskcond::mount
