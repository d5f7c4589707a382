// A fault rule's words (fault_rules.h): parsing, checking, the canonical form, faults files.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <map>

#include "core/fault_rules.h"
#include "core/flat_toml.h"
#include "core/units.h"

namespace diskcond {
namespace {

constexpr std::string_view kOpNames[kFaultOpCount] = {
    "read", "write", "fsync", "open", "create", "unlink", "rename", "mkdir", "rmdir", "setattr"};
constexpr uint32_t kAllOps = (uint32_t{1} << kFaultOpCount) - 1;
constexpr uint32_t kDataOps = fault_op_bit(FaultOp::kRead) | fault_op_bit(FaultOp::kWrite);

constexpr std::string_view kActionNames[] = {"none",       "error",      "short", "corrupt",
                                             "lost-write", "bad-sector", "stall"};

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

constexpr std::string_view kKeys =
    "path, ops, range, error, short, corrupt, lost-write, every, after, p, seed, window, bad, "
    "sector, stall, at, period";
// The longest stall or stall period a rule may give.
constexpr int64_t kMaxStallNs = int64_t{24} * 3600 * kNsPerSec;

using Given = std::map<std::string, std::string, std::less<>>;

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

Result<int64_t> parse_seconds(std::string_view text) {
  return parse_time_ns(text, TimeUnit::kSeconds);
}

// A stall's time (stall=, at=, period=): 0 (`at=` only) or more up to kMaxStallNs.
Result<int64_t> parse_stall_time(std::string_view key, std::string_view text, bool zero_ok) {
  auto t = parse_seconds(text);
  if (!t.ok()) return make_error(fmt::format("{}=: {}", key, t.error()));
  if (*t < 0 || (*t == 0 && !zero_ok) || *t > kMaxStallNs) {
    return make_error(fmt::format("{}={} is out of range ({} to 24 hours)", key, text,
                                  zero_ok ? "0" : "above 0"));
  }
  return *t;
}

std::string format_time(int64_t ns) {
  if (ns % kNsPerSec == 0) return fmt::format("{}s", ns / kNsPerSec);
  if (ns % kNsPerMs == 0) return fmt::format("{}ms", ns / kNsPerMs);
  if (ns % kNsPerUs == 0) return fmt::format("{}us", ns / kNsPerUs);
  return fmt::format("{}ns", ns);
}

// Which keys each kind of rule takes besides its own.
Status check_keys(const Given& given, std::string_view kind,
                  std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : given) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return make_error(fmt::format("{} does not go with {}= (it takes {})", key, kind,
                                    fmt::join(allowed, "=, ")));
    }
  }
  return ok_status();
}

// Checks what no single word can: an action, ops it suits, one trigger.
Status check_request_rule(const FaultRule& r, const Given& given) {
  if (given.count("ops") == 0) return make_error("a rule needs ops= (read, write, ... or all)");
  int actions = 0;
  for (const char* key : {"error", "short", "corrupt", "lost-write"})
    actions += static_cast<int>(given.count(key));
  if (actions != 1) {
    return make_error(
        "a rule needs one action: error=NAME, short, corrupt, lost-write, bad= or stall=");
  }
  for (const char* key : {"sector", "at", "period"}) {
    if (given.count(key) != 0)
      return make_error(fmt::format("{}= goes with {}", key, key[0] == 's' ? "bad=" : "stall="));
  }
  int triggers = 0;
  for (const char* key : {"every", "after", "p"}) triggers += static_cast<int>(given.count(key));
  if (triggers > 1) return make_error("a rule takes one trigger: every=, after= or p=");
  if (given.count("seed") != 0 && given.count("p") == 0 &&
      !(r.action == FaultAction::kCorrupt && r.corrupt == CorruptMode::kFlip))
    return make_error("seed= goes with p= (a probability)");
  const bool has_short = r.action == FaultAction::kShort;
  if ((has_short || r.has_range) && (r.ops & ~kDataOps) != 0) {
    return make_error(fmt::format("{} applies to read and write only; ops= names others",
                                  has_short ? "short" : "range="));
  }
  if (r.action == FaultAction::kCorrupt && r.ops != fault_op_bit(FaultOp::kRead))
    return make_error("corrupt applies to reads: it takes ops=read");
  if (r.action == FaultAction::kLostWrite && r.ops != fault_op_bit(FaultOp::kWrite))
    return make_error("lost-write applies to writes: it takes ops=write");
  return ok_status();
}

Status check_stall_rule(const FaultRule& r, const Given& given) {
  if (Status s = check_keys(given, "stall", {"stall", "at", "period", "p", "seed"}); !s.ok())
    return s;
  if (given.count("p") != 0 && r.stall_period_ns == 0)
    return make_error("p= of a stall goes with period= (each period stalls with probability p)");
  if (r.trigger == FaultTrigger::kProbability && r.probability <= 0)
    return make_error("p= of a stall must be above 0");
  if (r.stall_unbounded && r.stall_period_ns != 0)
    return make_error("stall=unbounded happens once: it takes no period=");
  if (given.count("seed") != 0 && !needs_seed(r))
    return make_error("seed= goes with p= or a random stall length (stall=MIN-MAX)");
  return ok_status();
}

Result<std::vector<ByteRange>> parse_bad_ranges(std::string_view text) {
  std::vector<ByteRange> ranges;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    auto span = parse_span<uint64_t>("bad", text.substr(0, comma), parse_size);
    if (!span.ok()) return Error{span.error()};
    ranges.push_back({span->first, span->second});
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  if (ranges.empty()) return make_error("bad= names no range (bad=A-B[,C-D...])");
  return ranges;
}

// One word into `r`; `given` has every key already.
Status parse_word(FaultRule& r, const std::string& key, std::string_view value, bool has_value) {
  if (key == "short" || key == "lost-write") {
    if (has_value) return make_error(fmt::format("{} takes no value", key));
    r.action = key == "short" ? FaultAction::kShort : FaultAction::kLostWrite;
    return ok_status();
  }
  if (key == "corrupt") {
    if (has_value && value != "flip" && value != "zero")
      return make_error(fmt::format("corrupt= takes flip or zero, not '{}'", value));
    r.action = FaultAction::kCorrupt;
    r.corrupt = has_value && value == "zero" ? CorruptMode::kZero : CorruptMode::kFlip;
    return ok_status();
  }
  if (!has_value) return make_error(fmt::format("'{}' is not key=value (keys: {})", key, kKeys));
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
    auto span = parse_span<int64_t>(key, value, parse_seconds);
    if (!span.ok()) return Error{span.error()};
    if (span->first < 0) return make_error("window= times count from the rule's start");
    r.has_window = true;
    std::tie(r.window_begin_ns, r.window_end_ns) = *span;
  } else if (key == "bad") {
    auto ranges = parse_bad_ranges(value);
    if (!ranges.ok()) return Error{ranges.error()};
    r.action = FaultAction::kBadSectors;
    r.bad = std::move(ranges).value();
  } else if (key == "sector") {
    if (value != "512" && value != "1024" && value != "2048" && value != "4096")
      return make_error(fmt::format("sector= takes 512, 1024, 2048 or 4096, not '{}'", value));
    r.sector_bytes = static_cast<uint32_t>(std::stoul(std::string(value)));
  } else if (key == "stall") {
    r.action = FaultAction::kStall;
    if (value == "unbounded") {
      r.stall_unbounded = true;
    } else if (value.find('-') != std::string_view::npos) {
      auto span = parse_span<int64_t>(key, value, parse_seconds);
      if (!span.ok()) return Error{span.error()};
      for (int64_t t : {span->first, span->second}) {
        if (t <= 0 || t > kMaxStallNs)
          return make_error(fmt::format("stall={} is out of range (above 0 to 24 hours)", value));
      }
      std::tie(r.stall_min_ns, r.stall_max_ns) = *span;
    } else {
      auto t = parse_stall_time(key, value, false);
      if (!t.ok()) return Error{t.error()};
      r.stall_min_ns = r.stall_max_ns = *t;
    }
  } else if (key == "at" || key == "period") {
    auto t = parse_stall_time(key, value, key == "at");
    if (!t.ok()) return Error{t.error()};
    (key == "at" ? r.stall_at_ns : r.stall_period_ns) = *t;
  } else {
    return make_error(fmt::format("unknown key '{}' (keys: {})", key, kKeys));
  }
  return ok_status();
}

std::string ops_text(uint32_t ops) {
  if (ops == kAllOps) return "all";
  std::string text;
  for (int i = 0; i < kFaultOpCount; ++i) {
    if ((ops & (uint32_t{1} << i)) == 0) continue;
    if (!text.empty()) text += ',';
    text += kOpNames[i];
  }
  return text;
}

// A faults file in the line format.
Result<std::vector<FaultRule>> parse_rule_lines(std::string_view text, const std::string& origin) {
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

// A faults file in TOML: [[rule]] tables whose keys and values are the words'.
Result<std::vector<FaultRule>> parse_rule_tables(std::string_view text, const std::string& origin) {
  auto entries = parse_flat_toml(text, origin, FlatTomlOptions{true, true});
  if (!entries.ok()) return Error{entries.error()};
  std::vector<std::vector<std::string>> words;
  std::vector<int> lines;  // each table's [[rule]] line
  for (const FlatTomlEntry& e : *entries) {
    auto at = [&](const std::string& what) {
      return make_error(fmt::format("{}:{}: {}", origin, e.line, what));
    };
    if (e.table != "rule") {
      return at(e.table.empty() ? fmt::format("'{}' is outside a [[rule]] table", e.key)
                                : fmt::format("[[{}]] is not [[rule]]", e.table));
    }
    if (static_cast<size_t>(e.table_index) >= words.size()) {
      words.resize(e.table_index + 1);
      lines.resize(e.table_index + 1, e.table_line);
    }
    const bool flag = e.key == "short" || e.key == "lost-write" || e.key == "corrupt";
    if (e.kind == FlatTomlKind::kBoolean) {
      if (!flag) return at(fmt::format("'{}' takes a value, not true or false", e.key));
      if (e.value == "true") words[e.table_index].push_back(e.key);
    } else if (e.key == "short" || e.key == "lost-write") {
      return at(fmt::format("'{}' takes true or false", e.key));
    } else {
      words[e.table_index].push_back(e.key + "=" + e.value);
    }
  }
  std::vector<FaultRule> rules;
  for (size_t i = 0; i < words.size(); ++i) {
    auto rule = parse_fault_rule(words[i]);
    if (!rule.ok()) return make_error(fmt::format("{}:{}: {}", origin, lines[i], rule.error()));
    rules.push_back(std::move(rule).value());
  }
  return rules;
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

std::string_view fault_action_name(FaultAction action) {
  return kActionNames[static_cast<int>(action)];
}

Result<FaultAction> fault_action_from_name(std::string_view name) {
  auto it = std::find(std::begin(kActionNames), std::end(kActionNames), name);
  if (it == std::end(kActionNames)) return make_error(fmt::format("unknown action '{}'", name));
  return static_cast<FaultAction>(it - std::begin(kActionNames));
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

bool needs_seed(const FaultRule& r) {
  return r.trigger == FaultTrigger::kProbability ||
         (r.action == FaultAction::kStall && r.stall_min_ns < r.stall_max_ns) ||
         (r.action == FaultAction::kCorrupt && r.corrupt == CorruptMode::kFlip);
}

Result<FaultRule> parse_fault_rule(std::span<const std::string> words) {
  if (words.empty()) return make_error("empty rule (for example: path=*.db ops=read error=EIO)");
  FaultRule r;
  Given given;
  for (const std::string& word : words) {
    const size_t eq = word.find('=');
    const std::string key = word.substr(0, eq);
    const std::string_view value =
        eq == std::string::npos ? std::string_view() : std::string_view(word).substr(eq + 1);
    if (!given.emplace(key, std::string(value)).second)
      return make_error(fmt::format("'{}' given twice", key));
    if (Status s = parse_word(r, key, value, eq != std::string::npos); !s.ok())
      return Error{s.error()};
  }
  Status checked = ok_status();
  if (given.count("stall") != 0) {
    checked = check_stall_rule(r, given);
  } else if (given.count("bad") != 0) {
    checked = check_keys(given, "bad", {"path", "bad", "sector"});
    r.ops = kDataOps;
    r.error = EIO;
  } else {
    checked = check_request_rule(r, given);
  }
  if (!checked.ok()) return Error{checked.error()};
  return r;
}

std::vector<std::string> format_fault_rule(const FaultRule& r) {
  std::vector<std::string> words;
  if (r.action == FaultAction::kStall) {
    if (r.stall_unbounded) {
      words.push_back("stall=unbounded");
    } else if (r.stall_min_ns == r.stall_max_ns) {
      words.push_back("stall=" + format_time(r.stall_min_ns));
    } else {
      words.push_back(
          fmt::format("stall={}-{}", format_time(r.stall_min_ns), format_time(r.stall_max_ns)));
    }
    if (r.stall_at_ns != 0) words.push_back("at=" + format_time(r.stall_at_ns));
    if (r.stall_period_ns != 0) words.push_back("period=" + format_time(r.stall_period_ns));
    if (r.trigger == FaultTrigger::kProbability)
      words.push_back(fmt::format("p={}", r.probability));
    if (r.has_seed) words.push_back(fmt::format("seed={}", r.seed));
    return words;
  }
  words.push_back("path=" + r.path);
  if (r.action == FaultAction::kBadSectors) {
    std::string ranges;
    for (const ByteRange& b : r.bad)
      ranges += fmt::format("{}{}-{}", ranges.empty() ? "" : ",", b.begin, b.end);
    words.push_back("bad=" + ranges);
    if (r.sector_bytes != 512) words.push_back(fmt::format("sector={}", r.sector_bytes));
    return words;
  }
  words.push_back("ops=" + ops_text(r.ops));
  if (r.has_range) words.push_back(fmt::format("range={}-{}", r.range_begin, r.range_end));
  switch (r.action) {
    case FaultAction::kShort:
      words.push_back("short");
      break;
    case FaultAction::kCorrupt:
      words.push_back(r.corrupt == CorruptMode::kZero ? "corrupt=zero" : "corrupt");
      break;
    case FaultAction::kLostWrite:
      words.push_back("lost-write");
      break;
    default:
      words.push_back("error=" + fault_error_name(r.error));
      break;
  }
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
      break;
  }
  if (r.has_seed) words.push_back(fmt::format("seed={}", r.seed));
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
  // TOML when the first line that says something is an array-of-tables header.
  std::string_view rest = text;
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string_view::npos || line[start] == '#') continue;
    if (line.substr(start).starts_with("[[")) return parse_rule_tables(text, origin);
    break;
  }
  return parse_rule_lines(text, origin);
}

}  // namespace diskcond
