// Error rules (issue 15, item 3): which requests a conditioned directory fails, and how. Pure: no
// I/O and no clock of its own. The mount asks decide() with a request's operation, path, byte
// range and time, and applies the answer before the backing operation.
//
// A rule is {path glob, operations, optional byte range, trigger} -> action, written as words
// `key=value`, the same on the command line (`dmc fault add <dir> <words>`), in a faults file
// (`dmc start ... -faults FILE`: one rule per line, parse_fault_file) and on the control socket:
//   path=GLOB    fnmatch(3) on the path relative to the conditioned directory ("a/b.db"; the
//                directory itself is "."), without FNM_PATHNAME: `*` matches `/` too, so `*.db`
//                matches "a/b.db". Default `*`.
//   ops=LIST     comma-separated, required: read write fsync open create unlink rename mkdir
//                rmdir setattr, or all. rename matches its source path.
//   range=A-B    bytes [A, B) (sizes as units.h: 4096, 4k, 1m); only with ops among read and
//                write: the request must overlap the range.
//   error=NAME   the action: fail with this errno (kFaultErrors: EIO, ENOSPC, EROFS, ...); or
//   short        the action: do only the first half of the bytes (at least 1; read and write only)
//   every=N      trigger: the Nth, 2Nth, ... matching request fires; or
//   after=N      trigger: the first N matching requests pass, every later one fires; or
//   p=P seed=S   trigger: each matching request fires with probability P (0 to 1), drawn from the
//                splitmix64 sequence of S (the same seed and requests, the same faults). Without
//                seed= the caller picks one (FaultRule::has_seed) and says which.
//   window=A-B   only requests from A to B after the rule was added match (times as units.h: 500ms,
//                10s; plain numbers are seconds); combines with a trigger.
// Without a trigger every matching request fires.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diskcond {

// The operations a rule can name, in the order of their names (fault_op_name).
enum class FaultOp : uint8_t {
  kRead,
  kWrite,
  kFsync,
  kOpen,
  kCreate,
  kUnlink,
  kRename,
  kMkdir,
  kRmdir,
  kSetattr,
};
constexpr int kFaultOpCount = 10;
constexpr uint32_t fault_op_bit(FaultOp op) {
  return uint32_t{1} << static_cast<int>(op);
}
std::string_view fault_op_name(FaultOp op);
// The op named `name` ("read"); an Error for any other word.
Result<FaultOp> fault_op_from_name(std::string_view name);

enum class FaultAction : uint8_t { kNone, kError, kShort };
enum class FaultTrigger : uint8_t { kAlways, kEvery, kAfter, kProbability };

struct FaultRule {
  std::string path = "*";
  uint32_t ops = 0;  // fault_op_bit()s, at least one
  bool has_range = false;
  uint64_t range_begin = 0, range_end = 0;   // [begin, end), begin < end
  FaultAction action = FaultAction::kError;  // kError or kShort
  int error = 0;                             // kError: the errno
  FaultTrigger trigger = FaultTrigger::kAlways;
  uint64_t n = 0;          // kEvery (>= 1), kAfter
  double probability = 0;  // kProbability, 0..1
  bool has_seed = false;   // kProbability: seed given (else the caller picks one)
  uint64_t seed = 0;
  bool has_window = false;
  int64_t window_begin_ns = 0, window_end_ns = 0;  // after the rule was added, begin < end

  bool operator==(const FaultRule&) const = default;
};

// The errnos an error rule may name: {"EIO", EIO}, ...
struct FaultErrorName {
  std::string_view name;
  int error;
};
std::span<const FaultErrorName> fault_error_names();
// "EIO" for EIO; "errno <n>" for one not in the table.
std::string fault_error_name(int error);

// Parses one rule from its words ("path=*.db", "ops=read", "error=EIO", "every=2"). Errors are one
// line naming the word. Nothing else is read.
Result<FaultRule> parse_fault_rule(std::span<const std::string> words);
// The canonical words of `rule`; parse_fault_rule(format_fault_rule(r)) == r.
std::vector<std::string> format_fault_rule(const FaultRule& rule);
// The words joined by spaces, for people.
std::string fault_rule_text(const FaultRule& rule);
// A faults file: one rule per line in the words of parse_fault_rule, split at blanks; `#` starts a
// comment; blank lines are fine. Errors read "<origin>:<line>: <what>".
Result<std::vector<FaultRule>> parse_fault_file(std::string_view text, const std::string& origin);

// What a request gets.
struct FaultDecision {
  FaultAction action = FaultAction::kNone;
  int error = 0;        // kError
  uint64_t length = 0;  // kShort: the bytes to do (half the request's, at least 1)
  uint64_t rule_id = 0;
  explicit operator bool() const { return action != FaultAction::kNone; }
};

// One injected fault, for `dmc fault log`.
struct FaultEvent {
  uint64_t seq = 0;   // 1, 2, ... in the order they were injected
  int64_t at_ns = 0;  // decide()'s now_ns
  uint64_t rule_id = 0;
  FaultOp op = FaultOp::kRead;
  std::string path;
  uint64_t offset = 0, length = 0;  // read, write: the request's bytes
  FaultAction action = FaultAction::kError;
  int error = 0;             // kError
  uint64_t done_length = 0;  // kShort: the bytes done
  int32_t pid = 0;           // the requesting process (0: unknown)

  bool operator==(const FaultEvent&) const = default;
};
// The log keeps the latest this many faults.
constexpr size_t kFaultLogCapacity = 1000;

// A rule in a set, with what it has done.
struct FaultRuleState {
  uint64_t id = 0;
  FaultRule rule;
  int64_t added_ns = 0;
  uint64_t matched = 0;  // requests that matched its path, ops, range and window
  uint64_t fired = 0;    // ... and were failed by it
};

// The live rules of a mount. Thread-safe: decide() and the changes take one mutex, and only when
// some rule names the operation; wants() is the fast path of a request no rule concerns (one
// relaxed atomic load), so a mount without rules pays nothing else.
class FaultRules {
 public:
  // Adds `rule` at `now_ns` (its window counts from then) and returns its id: 1, 2, ..., never
  // reused. REQUIRES: rule from parse_fault_rule; a seed (has_seed) for a probability rule.
  uint64_t add(const FaultRule& rule, int64_t now_ns);
  // False when there is no rule `id`.
  bool remove(uint64_t id);
  // Removes every rule; returns how many there were.
  size_t clear();
  std::vector<FaultRuleState> list() const;
  size_t size() const;
  // Requests failed or shortened since the set was made (removed rules' included).
  uint64_t injected() const { return injected_.load(std::memory_order_relaxed); }

  bool wants(FaultOp op) const {
    return (ops_.load(std::memory_order_relaxed) & fault_op_bit(op)) != 0;
  }
  // The fault for a request: `op` on `path` (relative to the conditioned directory), bytes
  // [offset, offset + length) for read and write, at `now_ns`. Rules are asked in the order they
  // were added; each that matches counts the request and draws its trigger; the first that fires
  // decides, and later rules do not see the request.
  // Every fault injected is logged with `pid`.
  FaultDecision decide(FaultOp op, std::string_view path, uint64_t offset, uint64_t length,
                       int64_t now_ns, int32_t pid = 0);
  // The latest injected faults (at most kFaultLogCapacity), oldest first, with seq > `after`.
  std::vector<FaultEvent> log(uint64_t after = 0) const;

 private:
  struct Entry {
    FaultRuleState state;
    uint64_t rng = 0;  // splitmix64 state
  };
  void update_ops();  // REQUIRES: mu_ held

  mutable std::mutex mu_;
  std::vector<Entry> rules_;
  uint64_t next_id_ = 1;
  std::vector<FaultEvent> log_;  // a ring of kFaultLogCapacity once full; log_next_ is the oldest
  size_t log_next_ = 0;
  uint64_t log_seq_ = 0;
  std::atomic<uint32_t> ops_{0};
  std::atomic<uint64_t> injected_{0};
};

// The n-th value of splitmix64 advances `state`; uniform in [0, 1) from its top 53 bits.
uint64_t splitmix64(uint64_t& state);
double uniform01(uint64_t& state);

}  // namespace diskcond
