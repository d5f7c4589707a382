#include "core/fault_rules.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <map>

#include "core/units.h"

namespace diskcond {
namespace {

constexpr std::string_view kOpNames[kFaultOpCount] = {
    "read", "write", "fsync", "open", "create", "unlink", "rename", "mkdir", "rmdir", "setattr"};
constexpr uint32_t kAllOps = (uint32_t{1} << kFaultOpCount) - 1;
constexpr uint32_t kDataOps = fault_op_bit(FaultOp::kRead) | fault_op_bit(FaultOp::kWrite);

constexpr FaultErrorName kErrors[] = {
    {"EIO", EIO},
    {"ENOSPC", ENOSPC},
    {"EROFS", EROFS},
    {"EDQUOT", EDQUOT},
    {"EACCES", EACCES},
    {"EPERM", EPERM},
    {"ENOENT", ENOENT},
    {"EEXIST", EEXIST},
    {"ENOTEMPTY", ENOTEMPTY},
    {"EBUSY", EBUSY},
    {"EAGAIN", EAGAIN},
    {"EINTR", EINTR},
    {"EFBIG", EFBIG},
    {"ENOMEM", ENOMEM},
    {"ENXIO", ENXIO},
    {"ENODEV", ENODEV},
    {"ETIMEDOUT", ETIMEDOUT},
    {"EINVAL", EINVAL},
    {"EMFILE", EMFILE},
    {"ENAMETOOLONG", ENAMETOOLONG},
    {"ESTALE", ESTALE},
    {"EOVERFLOW", EOVERFLOW},
};

constexpr std::string_view kKeys = "path, ops, range, error, short, every, after, p, seed, window";

Result<uint32_t> parse_ops(std::string_view text) {
  uint32_t ops = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view name = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (name == "all") {
      ops |= kAllOps;
      continue;
    }
    auto it = std::find(std::begin(kOpNames), std::end(kOpNames), name);
    if (it == std::end(kOpNames)) {
      return make_error(fmt::format(
          "unknown operation '{}' (read, write, fsync, open, create, unlink, rename, mkdir, "
          "rmdir, setattr or all)",
          name));
    }
    ops |= uint32_t{1} << (it - std::begin(kOpNames));
  }
  if (ops == 0) return make_error("ops= names no operation");
  return ops;
}

Result<uint64_t> parse_count(std::string_view key, std::string_view text) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return make_error(fmt::format("{}= takes a whole number, not '{}'", key, text));
  }
  return n;
}

// "A-B" -> {A, B} with `parse` for each side; A < B.
template <class T, class Parse>
Result<std::pair<T, T>> parse_span(std::string_view key, std::string_view text, Parse parse) {
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == text.size()) {
    return make_error(fmt::format("{}= takes FROM-TO, not '{}'", key, text));
  }
  auto a = parse(text.substr(0, dash));
  auto b = parse(text.substr(dash + 1));
  if (!a.ok()) return make_error(fmt::format("{}=: {}", key, a.error()));
  if (!b.ok()) return make_error(fmt::format("{}=: {}", key, b.error()));
  if (static_cast<T>(*a) >= static_cast<T>(*b)) {
    return make_error(fmt::format("{}={} is empty: FROM must be below TO", key, text));
  }
  return std::pair<T, T>{static_cast<T>(*a), static_cast<T>(*b)};
}

std::string format_time(int64_t ns) {
  if (ns % kNsPerSec == 0) return fmt::format("{}s", ns / kNsPerSec);
  if (ns % kNsPerMs == 0) return fmt::format("{}ms", ns / kNsPerMs);
  if (ns % kNsPerUs == 0) return fmt::format("{}us", ns / kNsPerUs);
  return fmt::format("{}ns", ns);
}

// Checks what no single word can: an action, ops it suits, one trigger.
Status check_rule(const FaultRule& r,
                  const std::map<std::string, std::string, std::less<>>& given) {
  if (given.count("ops") == 0) return make_error("a rule needs ops= (read, write, ... or all)");
  const bool has_error = given.count("error") != 0, has_short = given.count("short") != 0;
  if (has_error == has_short) return make_error("a rule needs one action: error=NAME or short");
  int triggers = 0;
  for (const char* key : {"every", "after", "p"}) triggers += static_cast<int>(given.count(key));
  if (triggers > 1) return make_error("a rule takes one trigger: every=, after= or p=");
  if (given.count("seed") != 0 && given.count("p") == 0)
    return make_error("seed= goes with p= (a probability)");
  if ((has_short || r.has_range) && (r.ops & ~kDataOps) != 0) {
    return make_error(fmt::format("{} applies to read and write only; ops= names others",
                                  has_short ? "short" : "range="));
  }
  return ok_status();
}

}  // namespace

std::string_view fault_op_name(FaultOp op) {
  return kOpNames[static_cast<int>(op)];
}

Result<FaultOp> fault_op_from_name(std::string_view name) {
  auto it = std::find(std::begin(kOpNames), std::end(kOpNames), name);
  if (it == std::end(kOpNames)) return make_error(fmt::format("unknown operation '{}'", name));
  return static_cast<FaultOp>(it - std::begin(kOpNames));
}

std::span<const FaultErrorName> fault_error_names() {
  return kErrors;
}

std::string fault_error_name(int error) {
  for (const FaultErrorName& e : kErrors) {
    if (e.error == error) return std::string(e.name);
  }
  return fmt::format("errno {}", error);
}

Result<FaultRule> parse_fault_rule(std::span<const std::string> words) {
  if (words.empty()) return make_error("empty rule (for example: path=*.db ops=read error=EIO)");
  FaultRule r;
  std::map<std::string, std::string, std::less<>> given;
  for (const std::string& word : words) {
    const size_t eq = word.find('=');
    const std::string key = word.substr(0, eq);
    const std::string_view value =
        eq == std::string::npos ? std::string_view() : std::string_view(word).substr(eq + 1);
    if (!given.emplace(key, std::string(value)).second)
      return make_error(fmt::format("'{}' given twice", key));
    if (key == "short") {
      if (eq != std::string::npos) return make_error("short takes no value");
      r.action = FaultAction::kShort;
      continue;
    }
    if (eq == std::string::npos) {
      return make_error(fmt::format("'{}' is not key=value (keys: {})", word, kKeys));
    }
    if (key == "path") {
      if (value.empty()) return make_error("path= is empty");
      if (value.find_first_of(" \t\n") != std::string_view::npos)
        return make_error("path= may not contain blanks (use ? for one character)");
      r.path = std::string(value);
    } else if (key == "ops") {
      auto ops = parse_ops(value);
      if (!ops.ok()) return Error{ops.error()};
      r.ops = *ops;
    } else if (key == "range") {
      auto span = parse_span<uint64_t>(key, value, parse_size);
      if (!span.ok()) return Error{span.error()};
      r.has_range = true;
      std::tie(r.range_begin, r.range_end) = *span;
    } else if (key == "error") {
      auto it = std::find_if(std::begin(kErrors), std::end(kErrors),
                             [&](const FaultErrorName& e) { return e.name == value; });
      if (it == std::end(kErrors)) {
        return make_error(
            fmt::format("unknown error '{}' (EIO, ENOSPC, EROFS, EDQUOT, EACCES, ...; "
                        "see dmc fault --help)",
                        value));
      }
      r.action = FaultAction::kError;
      r.error = it->error;
    } else if (key == "every" || key == "after") {
      auto n = parse_count(key, value);
      if (!n.ok()) return Error{n.error()};
      if (key == "every" && *n == 0) return make_error("every= must be at least 1");
      r.trigger = key == "every" ? FaultTrigger::kEvery : FaultTrigger::kAfter;
      r.n = *n;
    } else if (key == "p") {
      double p = -1;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), p);
      if (ec != std::errc() || end != value.data() + value.size() || !(p >= 0 && p <= 1))
        return make_error(fmt::format("p= takes a probability from 0 to 1, not '{}'", value));
      r.trigger = FaultTrigger::kProbability;
      r.probability = p;
    } else if (key == "seed") {
      auto seed = parse_count(key, value);
      if (!seed.ok()) return Error{seed.error()};
      r.has_seed = true;
      r.seed = *seed;
    } else if (key == "window") {
      auto span = parse_span<int64_t>(
          key, value, [](std::string_view t) { return parse_time_ns(t, TimeUnit::kSeconds); });
      if (!span.ok()) return Error{span.error()};
      if (span->first < 0) return make_error("window= times count from the rule's start");
      r.has_window = true;
      std::tie(r.window_begin_ns, r.window_end_ns) = *span;
    } else {
      return make_error(fmt::format("unknown key '{}' (keys: {})", key, kKeys));
    }
  }
  if (Status s = check_rule(r, given); !s.ok()) return Error{s.error()};
  return r;
}

std::vector<std::string> format_fault_rule(const FaultRule& r) {
  std::vector<std::string> words = {"path=" + r.path};
  std::string ops;
  if (r.ops == kAllOps) {
    ops = "all";
  } else {
    for (int i = 0; i < kFaultOpCount; ++i) {
      if ((r.ops & (uint32_t{1} << i)) == 0) continue;
      if (!ops.empty()) ops += ',';
      ops += kOpNames[i];
    }
  }
  words.push_back("ops=" + ops);
  if (r.has_range) words.push_back(fmt::format("range={}-{}", r.range_begin, r.range_end));
  words.push_back(r.action == FaultAction::kShort ? "short" : "error=" + fault_error_name(r.error));
  switch (r.trigger) {
    case FaultTrigger::kAlways:
      break;
    case FaultTrigger::kEvery:
      words.push_back(fmt::format("every={}", r.n));
      break;
    case FaultTrigger::kAfter:
      words.push_back(fmt::format("after={}", r.n));
      break;
    case FaultTrigger::kProbability:
      words.push_back(fmt::format("p={}", r.probability));
      if (r.has_seed) words.push_back(fmt::format("seed={}", r.seed));
      break;
  }
  if (r.has_window) {
    words.push_back(
        fmt::format("window={}-{}", format_time(r.window_begin_ns), format_time(r.window_end_ns)));
  }
  return words;
}

std::string fault_rule_text(const FaultRule& rule) {
  return fmt::format("{}", fmt::join(format_fault_rule(rule), " "));
}

Result<std::vector<FaultRule>> parse_fault_file(std::string_view text, const std::string& origin) {
  std::vector<FaultRule> rules;
  int line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    line = line.substr(0, line.find('#'));
    std::vector<std::string> words;
    size_t i = 0;
    while (i < line.size()) {
      const size_t start = line.find_first_not_of(" \t\r", i);
      if (start == std::string_view::npos) break;
      const size_t end = std::min(line.find_first_of(" \t\r", start), line.size());
      words.emplace_back(line.substr(start, end - start));
      i = end;
    }
    if (words.empty()) continue;
    auto rule = parse_fault_rule(words);
    if (!rule.ok()) return make_error(fmt::format("{}:{}: {}", origin, line_no, rule.error()));
    rules.push_back(std::move(rule).value());
  }
  return rules;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double uniform01(uint64_t& state) {
  return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
}

uint64_t FaultRules::add(const FaultRule& rule, int64_t now_ns) {
  std::lock_guard lock(mu_);
  Entry e;
  e.state.id = next_id_++;
  e.state.rule = rule;
  e.state.added_ns = now_ns;
  e.rng = rule.seed;
  rules_.push_back(std::move(e));
  update_ops();
  return rules_.back().state.id;
}

bool FaultRules::remove(uint64_t id) {
  std::lock_guard lock(mu_);
  auto it =
      std::find_if(rules_.begin(), rules_.end(), [id](const Entry& e) { return e.state.id == id; });
  if (it == rules_.end()) return false;
  rules_.erase(it);
  update_ops();
  return true;
}

size_t FaultRules::clear() {
  std::lock_guard lock(mu_);
  const size_t n = rules_.size();
  rules_.clear();
  update_ops();
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

std::vector<FaultEvent> FaultRules::log(uint64_t after) const {
  std::lock_guard lock(mu_);
  std::vector<FaultEvent> out;
  for (size_t i = 0; i < log_.size(); ++i) {
    const FaultEvent& e = log_[(log_next_ + i) % log_.size()];
    if (e.seq > after) out.push_back(e);
  }
  return out;
}

FaultDecision FaultRules::decide(FaultOp op, std::string_view path, uint64_t offset,
                                 uint64_t length, int64_t now_ns, int32_t pid) {
  if (!wants(op)) return {};
  const std::string path_z(path);  // fnmatch wants it NUL-terminated
  std::lock_guard lock(mu_);
  for (Entry& e : rules_) {
    const FaultRule& r = e.state.rule;
    if ((r.ops & fault_op_bit(op)) == 0) continue;
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
    ++e.state.fired;
    injected_.fetch_add(1, std::memory_order_relaxed);
    FaultDecision d;
    d.action = r.action;
    d.error = r.error;
    d.rule_id = e.state.id;
    if (r.action == FaultAction::kShort)
      d.length = std::max<uint64_t>(length / 2, std::min<uint64_t>(length, 1));
    FaultEvent event{++log_seq_, now_ns,   d.rule_id, op,       path_z, offset,
                     length,     d.action, d.error,   d.length, pid};
    if (log_.size() < kFaultLogCapacity) {
      log_.push_back(std::move(event));
    } else {
      log_[log_next_] = std::move(event);
      log_next_ = (log_next_ + 1) % kFaultLogCapacity;
    }
    return d;
  }
  return {};
}

}  // namespace diskcond
