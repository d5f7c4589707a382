// The live fault rules of a mount (fault_rules.h): deciding, counting, logging; stalls.
#include "core/fault_rules.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "core/bad_sectors.h"
#include "core/stall_timeline.h"

namespace diskcond {

double uniform01(uint64_t& state) {
  return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
}

void corrupt_reply(const FaultDecision& d, uint64_t offset, std::span<char> data) {
  if (d.action != FaultAction::kCorrupt || data.empty()) return;
  const uint64_t begin = std::max(offset, d.corrupt_begin);
  const uint64_t end = std::min(offset + data.size(), d.corrupt_end);
  if (begin >= end) return;
  if (d.corrupt == CorruptMode::kZero) {
    std::memset(data.data() + (begin - offset), 0, end - begin);
    return;
  }
  constexpr uint64_t kSector = 512;
  for (uint64_t sector = begin / kSector; sector * kSector < end; ++sector) {
    // A bit of this sector's bytes inside [begin, end), the same for the same seed and sector.
    const uint64_t from = std::max(begin, sector * kSector);
    const uint64_t to = std::min(end, (sector + 1) * kSector);
    uint64_t state = d.corrupt_seed ^ (sector * 0xD1B54A32D192ED03ULL);
    const uint64_t bit = splitmix64(state) % ((to - from) * 8);
    data[from - offset + bit / 8] ^= static_cast<char>(1u << (bit % 8));
  }
}

struct FaultRules::Entry {
  FaultRuleState state;
  uint64_t rng = 0;                       // splitmix64 state (probability triggers)
  std::optional<BadSectors> bad_sectors;  // kBadSectors
};

FaultRules::FaultRules() : stalls_(std::make_unique<StallTimeline>()) {}
FaultRules::~FaultRules() = default;

uint64_t FaultRules::add(const FaultRule& rule, int64_t now_ns) {
  std::lock_guard lock(mu_);
  Entry e;
  e.state.id = next_id_++;
  e.state.rule = rule;
  e.state.added_ns = now_ns;
  e.rng = rule.seed;
  if (rule.action == FaultAction::kBadSectors) e.bad_sectors.emplace(rule.bad, rule.sector_bytes);
  if (rule.action == FaultAction::kStall) {
    note_stalls(now_ns);
    stalls_->add(e.state.id, rule, now_ns);
  }
  rules_.push_back(std::move(e));
  update_ops();
  if (rule.action == FaultAction::kStall) update_fixed_lag(now_ns);
  return rules_.back().state.id;
}

bool FaultRules::remove(uint64_t id, int64_t now_ns) {
  std::lock_guard lock(mu_);
  auto it =
      std::find_if(rules_.begin(), rules_.end(), [id](const Entry& e) { return e.state.id == id; });
  if (it == rules_.end()) return false;
  if (it->state.rule.action == FaultAction::kStall) {
    note_stalls(now_ns);
    stalls_->remove(id, now_ns);
  }
  const bool stall = it->state.rule.action == FaultAction::kStall;
  rules_.erase(it);
  update_ops();
  if (stall) update_fixed_lag(now_ns);
  return true;
}

size_t FaultRules::clear(int64_t now_ns) {
  std::lock_guard lock(mu_);
  const size_t n = rules_.size();
  note_stalls(now_ns);
  for (const Entry& e : rules_) {
    if (e.state.rule.action == FaultAction::kStall) stalls_->remove(e.state.id, now_ns);
  }
  rules_.clear();
  update_ops();
  update_fixed_lag(now_ns);
  return n;
}

std::vector<FaultRuleState> FaultRules::list() const {
  std::lock_guard lock(mu_);
  std::vector<FaultRuleState> out;
  for (const Entry& e : rules_) out.push_back(e.state);
  return out;
}

size_t FaultRules::size() const {
  std::lock_guard lock(mu_);
  return rules_.size();
}

void FaultRules::update_ops() {
  uint32_t ops = 0;
  for (const Entry& e : rules_) ops |= e.state.rule.ops;
  ops_.store(ops, std::memory_order_relaxed);
}

void FaultRules::update_fixed_lag(int64_t now_ns) {
  note_stalls(now_ns);
  fixed_lag_.store(stalls_->settled() ? stalls_->stalled_by_checkpoint() : kStallsLive,
                   std::memory_order_relaxed);
}

void FaultRules::note_stalls(int64_t wall_ns) {
  for (const StallStart& s : stalls_->advance(wall_ns)) {
    for (Entry& e : rules_) {
      if (e.state.id == s.id) ++e.state.fired;
    }
    FaultEvent event;
    event.at_ns = s.start_ns;
    event.rule_id = s.id;
    event.length = s.length_ns == kNeverNs ? 0 : static_cast<uint64_t>(s.length_ns);
    event.action = FaultAction::kStall;
    record(std::move(event));
  }
}

int64_t FaultRules::device_ns(int64_t wall_ns) {
  std::lock_guard lock(mu_);
  note_stalls(wall_ns);
  const int64_t device = stalls_->device_ns(wall_ns);
  // The last stall over and no stall rule left: back to the fast path.
  if (fixed_lag_.load(std::memory_order_relaxed) == kStallsLive) update_fixed_lag(wall_ns);
  return device;
}

int64_t FaultRules::wall_ns(int64_t device_ns) const {
  std::lock_guard lock(mu_);
  return stalls_->wall_ns(device_ns);
}

size_t FaultRules::release(int64_t now_ns) {
  std::lock_guard lock(mu_);
  note_stalls(now_ns);
  const size_t released = stalls_->release(now_ns);
  update_fixed_lag(now_ns);
  return released;
}

bool FaultRules::stalled(int64_t now_ns) {
  std::lock_guard lock(mu_);
  note_stalls(now_ns);
  return stalls_->stalled(now_ns);
}

int64_t FaultRules::stalled_ns(int64_t now_ns) {
  std::lock_guard lock(mu_);
  note_stalls(now_ns);
  return stalls_->stalled_by_checkpoint();
}

std::vector<FaultEvent> FaultRules::log(uint64_t after) const {
  std::lock_guard lock(mu_);
  std::vector<FaultEvent> out;
  for (size_t i = 0; i < log_.size(); ++i) {
    const FaultEvent& e = log_[(log_next_ + i) % log_.size()];
    if (e.seq > after) out.push_back(e);
  }
  return out;
}

void FaultRules::record(FaultEvent event) {
  event.seq = ++log_seq_;
  injected_.fetch_add(1, std::memory_order_relaxed);
  if (log_.size() < kFaultLogCapacity) {
    log_.push_back(std::move(event));
  } else {
    log_[log_next_] = std::move(event);
    log_next_ = (log_next_ + 1) % kFaultLogCapacity;
  }
}

FaultDecision FaultRules::decide(FaultOp op, std::string_view path, uint64_t offset,
                                 uint64_t length, int64_t now_ns, int32_t pid) {
  if (!wants(op)) return {};
  const std::string path_z(path);  // fnmatch wants it NUL-terminated
  std::lock_guard lock(mu_);
  FaultDecision d;
  for (Entry& e : rules_) {
    const FaultRule& r = e.state.rule;
    if ((r.ops & fault_op_bit(op)) == 0) continue;
    if (r.action == FaultAction::kBadSectors) {
      // Reads of a bad sector fail; writes are seen below, once the decision is known.
      if (op != FaultOp::kRead || fnmatch(r.path.c_str(), path_z.c_str(), 0) != 0 ||
          !e.bad_sectors->read_fails(path_z, offset, length))
        continue;
      ++e.state.matched;
      ++e.state.fired;
      d.action = FaultAction::kError;
      d.error = EIO;
      d.rule_id = e.state.id;
      record(FaultEvent{0, now_ns, d.rule_id, op, path_z, offset, length, FaultAction::kBadSectors,
                        EIO, 0, pid});
      return d;
    }
    if (r.has_range &&
        (offset >= r.range_end || offset + std::max<uint64_t>(length, 1) <= r.range_begin))
      continue;
    if (r.has_window) {
      const int64_t since = now_ns - e.state.added_ns;
      if (since < r.window_begin_ns || since >= r.window_end_ns) continue;
    }
    if (fnmatch(r.path.c_str(), path_z.c_str(), 0) != 0) continue;
    const uint64_t matched = ++e.state.matched;
    bool fires = true;
    switch (r.trigger) {
      case FaultTrigger::kAlways:
        break;
      case FaultTrigger::kEvery:
        fires = matched % r.n == 0;
        break;
      case FaultTrigger::kAfter:
        fires = matched > r.n;
        break;
      case FaultTrigger::kProbability:
        fires = uniform01(e.rng) < r.probability;
        break;
    }
    if (!fires) continue;
    const uint64_t fired = ++e.state.fired;
    d.action = r.action;
    d.error = r.error;
    d.rule_id = e.state.id;
    if (r.action == FaultAction::kShort)
      d.length = std::max<uint64_t>(length / 2, std::min<uint64_t>(length, 1));
    if (r.action == FaultAction::kCorrupt) {
      d.corrupt = r.corrupt;
      if (r.has_range) {
        d.corrupt_begin = r.range_begin;
        d.corrupt_end = r.range_end;
      }
      uint64_t state = r.seed ^ (fired * 0x9E3779B97F4A7C15ULL);
      d.corrupt_seed = splitmix64(state);
    }
    record(FaultEvent{0, now_ns, d.rule_id, op, path_z, offset, length, d.action, d.error, d.length,
                      pid});
    break;
  }
  // A write that reaches the file (in full, or its first bytes when short) repairs what it covers.
  if (op == FaultOp::kWrite &&
      (d.action == FaultAction::kNone || d.action == FaultAction::kShort)) {
    const uint64_t done = d.action == FaultAction::kShort ? d.length : length;
    for (Entry& e : rules_) {
      if (e.bad_sectors && fnmatch(e.state.rule.path.c_str(), path_z.c_str(), 0) == 0)
        e.state.repaired += e.bad_sectors->wrote(path_z, offset, done);
    }
  }
  return d;
}

}  // namespace diskcond
