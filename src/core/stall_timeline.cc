#include "core/stall_timeline.h"

#include <algorithm>
#include <cmath>

#include "core/fault_rules.h"

namespace diskcond {

double stall_draw(uint64_t seed, int64_t k, int i) {
  uint64_t state =
      seed ^ ((static_cast<uint64_t>(k) << 1 | static_cast<uint64_t>(i)) * 0xD1B54A32D192ED03ULL);
  return uniform01(state);
}

void StallTimeline::add(uint64_t id, const FaultRule& rule, int64_t now_ns) {
  Source s;
  s.id = id;
  s.first_ns = now_ns + rule.stall_at_ns;
  s.period_ns = rule.stall_period_ns;
  s.min_ns = rule.stall_min_ns;
  s.max_ns = rule.stall_max_ns;
  s.unbounded = rule.stall_unbounded;
  s.probability = rule.trigger == FaultTrigger::kProbability ? rule.probability : 1.0;
  s.seed = rule.seed;
  sources_.push_back(s);
}

bool StallTimeline::remove(uint64_t id, int64_t now_ns) {
  for (Source& s : sources_) {
    if (s.id == id && s.removed_ns == kNeverNs) {
      s.removed_ns = now_ns;
      return true;
    }
  }
  return false;
}

size_t StallTimeline::release(int64_t now_ns) {
  size_t stalled_rules = 0;
  for (const Source& s : sources_) {
    Interval iv;
    if (first_ending_after(s, now_ns, iv) && iv.start <= now_ns) ++stalled_rules;
  }
  if (releases_.empty() || releases_.back() < now_ns) releases_.push_back(now_ns);
  return stalled_rules;
}

int64_t StallTimeline::drawn_length(const Source& s, int64_t k) {
  if (s.unbounded) return kNeverNs;
  if (s.max_ns <= s.min_ns) return s.min_ns;
  const double span = static_cast<double>(s.max_ns - s.min_ns + 1);
  return s.min_ns +
         std::min<int64_t>(static_cast<int64_t>(std::floor(span * stall_draw(s.seed, k, 1))),
                           s.max_ns - s.min_ns);
}

bool StallTimeline::interval(const Source& s, int64_t k, Interval& out) const {
  if (k < 0 || (s.period_ns == 0 && k > 0)) return false;
  const int64_t start = s.first_ns + k * s.period_ns;
  if (start >= s.removed_ns) return false;
  if (s.probability < 1.0 && stall_draw(s.seed, k, 0) >= s.probability) return false;
  const int64_t length = drawn_length(s, k);
  int64_t end = length == kNeverNs ? kNeverNs : start + length;
  auto release = std::lower_bound(releases_.begin(), releases_.end(), start);
  if (release != releases_.end() && *release < end) end = *release;
  end = std::min(end, s.removed_ns);
  if (end <= start) return false;
  out = Interval{start, end};
  return true;
}

bool StallTimeline::first_ending_after(const Source& s, int64_t t, Interval& out) const {
  if (s.period_ns == 0) return interval(s, 0, out) && out.end > t;
  int64_t k = 0;
  if (t > s.first_ns + s.max_ns) k = (t - s.first_ns - s.max_ns) / s.period_ns;
  if (t >= s.cache_t) k = std::max(k, s.cache_k);
  for (const int64_t last = k + kMaxSearch; k < last; ++k) {
    if (s.first_ns + k * s.period_ns >= s.removed_ns) return false;
    Interval iv;
    if (interval(s, k, iv) && iv.end > t) {
      s.cache_t = t;
      s.cache_k = k;
      out = iv;
      return true;
    }
  }
  return false;
}

bool StallTimeline::next_stall(int64_t t, Interval& out) const {
  bool found = false;
  Interval cur;
  for (const Source& s : sources_) {
    Interval iv;
    if (first_ending_after(s, t, iv) && (!found || iv.start < cur.start)) {
      cur = iv;
      found = true;
    }
  }
  if (!found) return false;
  for (bool extended = true; extended && cur.end != kNeverNs;) {
    extended = false;
    for (const Source& s : sources_) {
      Interval iv;
      if (cur.end != kNeverNs && first_ending_after(s, cur.end, iv) && iv.start <= cur.end) {
        cur.end = iv.end;
        extended = true;
      }
    }
  }
  out = Interval{std::max(cur.start, t), cur.end};
  return true;
}

int64_t StallTimeline::stalled_since_checkpoint(int64_t wall) const {
  int64_t stalled = 0;
  int64_t t = checkpoint_ns_;
  Interval iv;
  while (t < wall && next_stall(t, iv) && iv.start < wall) {
    stalled += std::min(iv.end, wall) - iv.start;
    t = iv.end;
  }
  return stalled;
}

int64_t StallTimeline::device_ns(int64_t wall) const {
  wall = std::max(wall, checkpoint_ns_);
  return wall - stalled_before_checkpoint_ns_ - stalled_since_checkpoint(wall);
}

int64_t StallTimeline::wall_ns(int64_t device) const {
  int64_t t = checkpoint_ns_;
  int64_t dev = checkpoint_ns_ - stalled_before_checkpoint_ns_;
  if (device <= dev) return t - (dev - device);
  Interval iv;
  while (next_stall(t, iv)) {
    if (iv.start - t >= device - dev) break;
    dev += iv.start - t;
    if (iv.end == kNeverNs) return kNeverNs;
    t = iv.end;
  }
  return t + (device - dev);
}

bool StallTimeline::stalled(int64_t wall) const {
  Interval iv;
  return next_stall(wall, iv) && iv.start <= wall;
}

std::vector<StallStart> StallTimeline::advance(int64_t now_ns) {
  std::vector<StallStart> begun;
  for (Source& s : sources_) {
    for (int64_t& k = s.next_report_k; s.period_ns > 0 || k == 0; ++k) {
      const int64_t start = s.first_ns + k * s.period_ns;
      if (start > now_ns || start >= s.removed_ns) break;
      Interval iv;
      if (interval(s, k, iv)) begun.push_back({s.id, start, drawn_length(s, k)});  // as drawn
    }
  }
  std::sort(begun.begin(), begun.end(),
            [](const StallStart& a, const StallStart& b) { return a.start_ns < b.start_ns; });
  if (now_ns > checkpoint_ns_) {
    stalled_before_checkpoint_ns_ += stalled_since_checkpoint(now_ns);
    checkpoint_ns_ = now_ns;
  }
  return begun;
}

bool StallTimeline::settled() {
  std::erase_if(sources_, [&](const Source& s) {
    if (s.removed_ns <= checkpoint_ns_) return true;
    if (s.period_ns != 0) return false;
    Interval iv;
    return !interval(s, 0, iv) || iv.end <= checkpoint_ns_;
  });
  return sources_.empty();
}

}  // namespace diskcond
