#include "core/crash_plan.h"

#include <algorithm>
#include <map>
#include <utility>

namespace diskcond {
namespace {

using Ranges = std::map<uint64_t, uint64_t>;  // start -> end, disjoint

// The parts of [from, to) that `set` does not hold, in order.
std::vector<std::pair<uint64_t, uint64_t>> outside(const Ranges& set, uint64_t from, uint64_t to) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  auto it = set.upper_bound(from);
  if (it != set.begin() && std::prev(it)->second > from) --it;
  uint64_t cursor = from;
  for (; it != set.end() && it->first < to; ++it) {
    if (cursor < it->first) out.emplace_back(cursor, it->first);
    cursor = std::max(cursor, it->second);
  }
  if (cursor < to) out.emplace_back(cursor, to);
  return out;
}

void insert(Ranges& set, uint64_t from, uint64_t to) {
  auto it = set.upper_bound(from);
  if (it != set.begin() && std::prev(it)->second >= from) --it;
  while (it != set.end() && it->first <= to) {
    from = std::min(from, it->first);
    to = std::max(to, it->second);
    it = set.erase(it);
  }
  set.emplace(from, to);
}

uint64_t total(const Ranges& set) {
  uint64_t sum = 0;
  for (const auto& [from, to] : set) sum += to - from;
  return sum;
}

// The epoch's value of [from, to) before it: its saved bytes, zeros where it saved none.
void emit_before(const UndoEpoch& epoch, uint64_t from, uint64_t to,
                 std::vector<RestorePiece>& out) {
  RestorePiece piece{from, std::string(to - from, '\0')};
  auto it = epoch.before.upper_bound(from);
  if (it != epoch.before.begin()) --it;
  for (; it != epoch.before.end() && it->first < to; ++it) {
    const uint64_t start = std::max(from, it->first);
    const uint64_t end = std::min(to, it->first + it->second.size());
    if (start < end) {
      piece.bytes.replace(start - from, end - start, it->second, start - it->first, end - start);
    }
  }
  out.push_back(std::move(piece));
}

FileRestore plan_file(uint64_t file, const std::vector<UndoEpoch>& epochs, Tear tear,
                      uint64_t seed) {
  FileRestore r;
  r.file = file;
  const uint64_t unit = tear_unit(tear);
  Ranges settled;  // bytes whose survivor is decided (an epoch newer than the one looked at)
  Ranges written;  // every byte written by a lost-or-surviving epoch
  uint64_t surviving_end = 0;
  // Newest first: lost segments per epoch.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> lost(epochs.size());
  for (size_t k = epochs.size(); k-- > 0;) {
    const UndoEpoch& epoch = epochs[k];
    for (const auto& [start, end] : epoch.written) {
      insert(written, start, end);
      for (uint64_t a = start; a < end;) {
        const uint64_t b = unit == 0 ? end : std::min(end, (a / unit + 1) * unit);
        const bool survives = unit != 0 && unit_survives(seed, epoch.seq, a / unit);
        for (const auto& [from, to] : outside(settled, a, b)) {
          if (survives) {
            surviving_end = std::max(surviving_end, to);
          } else {
            lost[k].emplace_back(from, to);
          }
        }
        if (survives) insert(settled, a, b);
        a = b;
      }
    }
  }
  r.size = std::max(epochs.front().base_size, surviving_end);
  for (size_t k = epochs.size(); k-- > 0;) {
    for (const auto& [from, to] : lost[k]) {
      const uint64_t end = std::min(to, r.size);
      if (from < end) emit_before(epochs[k], from, end, r.pieces);
    }
  }
  r.survived_bytes = total(settled);
  r.lost_bytes = total(written) - r.survived_bytes;
  return r;
}

}  // namespace

const char* tear_name(Tear tear) {
  switch (tear) {
    case Tear::kSector:
      return "sector";
    case Tear::kPage:
      return "page";
    case Tear::kNone:
      break;
  }
  return "none";
}

Result<Tear> parse_tear(const std::string& word) {
  if (word == "none") return Tear::kNone;
  if (word == "sector") return Tear::kSector;
  if (word == "page") return Tear::kPage;
  return make_error("tear must be none, sector or page, not '" + word + "'");
}

uint64_t tear_unit(Tear tear) {
  switch (tear) {
    case Tear::kSector:
      return 512;
    case Tear::kPage:
      return 4096;
    case Tear::kNone:
      break;
  }
  return 0;
}

bool unit_survives(uint64_t seed, uint64_t epoch_seq, uint64_t index) {
  // splitmix64's finalizer over the three, mixed one after the other.
  uint64_t z = seed;
  for (uint64_t v : {epoch_seq, index}) {
    z += 0x9e3779b97f4a7c15ULL ^ v;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
  }
  return (z & 1) != 0;
}

CrashPlan plan_crash(const UndoSnapshot& snapshot, Tear tear, uint64_t seed) {
  CrashPlan plan;
  for (const auto& [file, epochs] : snapshot.files) {
    if (!epochs.empty()) plan.files.push_back(plan_file(file, epochs, tear, seed));
  }
  for (auto it = snapshot.changes.rbegin(); it != snapshot.changes.rend(); ++it) {
    plan.undo_changes.push_back(it->entry);
  }
  return plan;
}

}  // namespace diskcond
