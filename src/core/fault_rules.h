// Fault rules (issue 15, items 2 and 3): which requests a conditioned directory fails, corrupts or
// loses, where its bad sectors are, and when its device stalls. Pure: no I/O and no clock of its
// own. The mount asks decide() with a request's operation, path, byte range and wall time, and
// applies the answer before the backing operation; its device clock (device_ns) is wall time
// less the stalls.
//
// A rule is words `key=value`, the same on the command line (`dmc fault add <dir> <words>`), in a
// faults file (`dmc start ... -faults FILE`: one rule per line or TOML, parse_fault_file) and on
// the control socket. A request rule is {path glob, operations, optional byte range, trigger} ->
// action:
//   path=GLOB    fnmatch(3) on the path relative to the conditioned directory ("a/b.db"; the
//                directory itself is "."), without FNM_PATHNAME: `*` matches `/` too, so `*.db`
//                matches "a/b.db". Default `*`.
//   ops=LIST     comma-separated, required: read write fsync open create unlink rename mkdir
//                rmdir setattr, or all. rename matches its source path.
//   range=A-B    bytes [A, B) (sizes as units.h: 4096, 4k, 1m); only with ops among read and
//                write: the request must overlap the range.
//   error=NAME   the action: fail with this errno (kFaultErrors: EIO, ENOSPC, EROFS, ...); or
//   short        the action: do only the first half of the bytes (at least 1; read and write only)
//   corrupt[=flip|zero]  the action (ops=read only): the read succeeds but the reply's bytes (those
//                in range=, when given) are wrong: one bit flipped in each 512-byte sector of the
//                file they touch (which bit: from the seed), or zeros. The backing file is not
//                touched.
//   lost-write   the action (ops=write only): the write is acknowledged in full (and timed by the
//                model) but never reaches the backing file.
//   every=N      trigger: the Nth, 2Nth, ... matching request fires; or
//   after=N      trigger: the first N matching requests pass, every later one fires; or
//   p=P seed=S   trigger: each matching request fires with probability P (0 to 1), drawn from the
//                splitmix64 sequence of S (the same seed and requests, the same faults). Without
//                seed= the caller picks one (needs_seed()) and says which.
//   window=A-B   only requests from A to B after the rule was added match (times as units.h: 500ms,
//                10s; plain numbers are seconds); combines with a trigger.
// Without a trigger every matching request fires.
//
// A bad-sector rule (dm-dust): `path=GLOB bad=A-B[,C-D...] [sector=512|4096]`: reads of a file
// matching GLOB that overlap a bad range fail with EIO until a write has covered it; a write
// repairs the whole sectors it covers, in that file only (the rule's other files keep theirs).
// Ranges are bytes (units.h sizes), widened outward to whole sectors.
//
// A stall rule (stall_timeline.h): `stall=D | stall=MIN-MAX | stall=unbounded [at=T] [period=P
// [p=P]] [seed=S]`: the whole pretend device stops for D (a fixed time), for a length drawn
// uniformly from [MIN, MAX] by the seed, or until `dmc fault release`; first T after the rule
// was added (default at once), then every P when period= is given, each with probability p.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "core/splitmix64.h"

namespace diskcond {

class StallTimeline;

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

// What a rule does. kBadSectors and kStall are rules of their own kind (see above); a request
// failed by a bad sector gets kError (EIO) in its FaultDecision and kBadSectors in the log.
enum class FaultAction : uint8_t {
  kNone,
  kError,
  kShort,
  kCorrupt,
  kLostWrite,
  kBadSectors,
  kStall
};
// "error", "short", "corrupt", "lost-write", "bad-sector", "stall" ("none" for kNone).
std::string_view fault_action_name(FaultAction action);
Result<FaultAction> fault_action_from_name(std::string_view name);
enum class FaultTrigger : uint8_t { kAlways, kEvery, kAfter, kProbability };
enum class CorruptMode : uint8_t { kFlip, kZero };

// A byte range [begin, end), begin < end.
struct ByteRange {
  uint64_t begin = 0, end = 0;
  bool operator==(const ByteRange&) const = default;
};

struct FaultRule {
  std::string path = "*";
  uint32_t ops = 0;  // fault_op_bit()s, at least one; bad sectors: read and write; stall: none
  bool has_range = false;
  uint64_t range_begin = 0, range_end = 0;   // [begin, end), begin < end
  FaultAction action = FaultAction::kError;  // never kNone
  int error = 0;                             // kError: the errno
  CorruptMode corrupt = CorruptMode::kFlip;  // kCorrupt
  FaultTrigger trigger = FaultTrigger::kAlways;
  uint64_t n = 0;          // kEvery (>= 1), kAfter
  double probability = 0;  // kProbability, 0..1 (a stall: > 0, with period_ns)
  bool has_seed = false;   // seed given (else the caller picks one where needs_seed())
  uint64_t seed = 0;
  bool has_window = false;
  int64_t window_begin_ns = 0, window_end_ns = 0;  // after the rule was added, begin < end
  // kBadSectors: the bad ranges as given (sorted, disjoint), and the sector size.
  std::vector<ByteRange> bad;
  uint32_t sector_bytes = 512;
  // kStall: its length (min == max: fixed; min < max: uniform by the seed), or until released;
  // when the first begins after the rule was added; the period (0: once).
  int64_t stall_min_ns = 0, stall_max_ns = 0;
  bool stall_unbounded = false;
  int64_t stall_at_ns = 0;
  int64_t stall_period_ns = 0;

  bool operator==(const FaultRule&) const = default;
};

// Whether `rule` draws from a seed (a probability, a random stall length, flipped bits): when it
// has none, the caller picks one and says which (dmc prints it; the daemon keeps it).
bool needs_seed(const FaultRule& rule);

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
// A faults file: either one rule per line in the words of parse_fault_rule, split at blanks, `#`
// starting a comment; or, when its first line that is not blank or a comment is `[[rule]]`, TOML:
// an array of tables `[[rule]]`, each of `key = value` lines whose keys are the words' keys and
// whose values are strings, integers, floats or booleans (`short = true`, `lost-write = true`,
// `corrupt = "zero"`, `p = 0.01`; false leaves the word out) - the subset flat_toml.h reads.
// Errors read "<origin>:<line>: <what>".
Result<std::vector<FaultRule>> parse_fault_file(std::string_view text, const std::string& origin);

// What a request gets.
struct FaultDecision {
  FaultAction action =
      FaultAction::kNone;  // kError (bad sectors too), kShort, kCorrupt, kLostWrite
  int error = 0;           // kError
  uint64_t length = 0;     // kShort: the bytes to do (half the request's, >= 1)
  uint64_t rule_id = 0;
  // kCorrupt: how, where (the rule's range, else everything) and the draw for flipped bits.
  CorruptMode corrupt = CorruptMode::kFlip;
  uint64_t corrupt_begin = 0, corrupt_end = std::numeric_limits<uint64_t>::max();
  uint64_t corrupt_seed = 0;
  explicit operator bool() const { return action != FaultAction::kNone; }
};

// Applies a kCorrupt decision to `data`, the reply to a read at file offset `offset`: zeros, or one
// bit flipped in each 512-byte sector of the file that [offset, offset + size) and the decision's
// range share (the bit from corrupt_seed and the sector's number). Anything else: unchanged.
void corrupt_reply(const FaultDecision& decision, uint64_t offset, std::span<char> data);

// One injected fault, for `dmc fault log`.
struct FaultEvent {
  uint64_t seq = 0;   // 1, 2, ... in the order they were injected
  int64_t at_ns = 0;  // decide()'s now_ns; a stall: when it began
  uint64_t rule_id = 0;
  FaultOp op = FaultOp::kRead;      // not for a stall
  std::string path;                 // "" for a stall
  uint64_t offset = 0, length = 0;  // read, write: the request's bytes; a stall: its length (ns,
                                    // 0 until released)
  FaultAction action = FaultAction::kError;
  int error = 0;             // kError, kBadSectors
  uint64_t done_length = 0;  // kShort: the bytes done
  int32_t pid = 0;           // the requesting process (0: unknown, a stall)

  bool operator==(const FaultEvent&) const = default;
};
// The log keeps the latest this many faults.
constexpr size_t kFaultLogCapacity = 1000;

// A rule in a set, with what it has done.
struct FaultRuleState {
  uint64_t id = 0;
  FaultRule rule;
  int64_t added_ns = 0;
  uint64_t matched = 0;   // requests that matched its path, ops, range and window
  uint64_t fired = 0;     // ... and were faulted by it (a stall rule: stalls begun)
  uint64_t repaired = 0;  // kBadSectors: bytes of bad sectors rewritten since (all files)

  bool operator==(const FaultRuleState&) const = default;
};

// The live rules of a mount. Thread-safe: decide() and the changes take one mutex, and only when
// some rule names the operation; wants() is the fast path of a request no rule concerns (one
// relaxed atomic load), so a mount without rules pays nothing else. Times are wall times
// (CLOCK_MONOTONIC in the mount); device_ns() gives the device's, which stalls hold back.
class FaultRules {
 public:
  FaultRules();
  ~FaultRules();
  // Adds `rule` at `now_ns` (its window counts from then) and returns its id: 1, 2, ..., never
  // reused. REQUIRES: rule from parse_fault_rule; a seed where needs_seed().
  uint64_t add(const FaultRule& rule, int64_t now_ns);
  // False when there is no rule `id`. A stall rule's stall in progress ends at `now_ns`.
  bool remove(uint64_t id, int64_t now_ns);
  // Removes every rule; returns how many there were.
  size_t clear(int64_t now_ns);
  std::vector<FaultRuleState> list() const;
  size_t size() const;
  // Faults injected since the set was made (removed rules' included): requests failed, shortened,
  // corrupted or lost, and stalls begun.
  uint64_t injected() const { return injected_.load(std::memory_order_relaxed); }

  bool wants(FaultOp op) const {
    return (ops_.load(std::memory_order_relaxed) & fault_op_bit(op)) != 0;
  }
  // The fault for a request: `op` on `path` (relative to the conditioned directory), bytes
  // [offset, offset + length) for read and write, at `now_ns`. Rules are asked in the order they
  // were added; each that matches counts the request and draws its trigger; the first that fires
  // decides, and later rules do not see the request. A write that is done (no decision, or a
  // short one: its first bytes) repairs the bad sectors it covers.
  // Every fault injected is logged with `pid`.
  FaultDecision decide(FaultOp op, std::string_view path, uint64_t offset, uint64_t length,
                       int64_t now_ns, int32_t pid = 0);
  // The latest injected faults (at most kFaultLogCapacity), oldest first, with seq > `after`.
  std::vector<FaultEvent> log(uint64_t after = 0) const;

  // ---- Stalls (stall_timeline.h). The device clock: `wall_ns` less the time the device has
  // stood still. Counts and logs the stalls begun by `wall_ns`. REQUIRES: wall_ns never less than
  // an earlier call's (a monotonic clock; an earlier one is read as the latest).
  int64_t device_ns(int64_t wall_ns);
  // When the device clock reads `device_ns`, in wall time; kNeverNs while a stall that lasts until
  // released holds it.
  int64_t wall_ns(int64_t device_ns) const;
  // The device clock's lag when no stall rule is live and no stall is in progress (device = wall -
  // lag for good); kStallsLive otherwise. One relaxed load: the fast path of the device clock.
  static constexpr int64_t kStallsLive = INT64_MIN;
  int64_t fixed_lag_ns() const { return fixed_lag_.load(std::memory_order_relaxed); }
  // Ends the stalls in progress at `now_ns`; returns how many there were.
  size_t release(int64_t now_ns);
  // The device is stalled at `now_ns`; the device time lost to stalls by then.
  bool stalled(int64_t now_ns);
  int64_t stalled_ns(int64_t now_ns);

 private:
  struct Entry;
  void update_ops();                      // REQUIRES: mu_ held
  void update_fixed_lag(int64_t now_ns);  // REQUIRES: mu_ held
  void record(FaultEvent event);          // REQUIRES: mu_ held
  void note_stalls(int64_t wall_ns);      // REQUIRES: mu_ held

  mutable std::mutex mu_;
  std::vector<Entry> rules_;
  uint64_t next_id_ = 1;
  std::vector<FaultEvent> log_;  // a ring of kFaultLogCapacity once full; log_next_ is the oldest
  size_t log_next_ = 0;
  uint64_t log_seq_ = 0;
  std::unique_ptr<StallTimeline> stalls_;
  std::atomic<uint32_t> ops_{0};
  std::atomic<uint64_t> injected_{0};
  std::atomic<int64_t> fixed_lag_{0};
};

// The next value of splitmix64 (core/splitmix64.h), advancing `state`, as uniform in [0, 1) from
// its top 53 bits.
double uniform01(uint64_t& state);

}  // namespace diskcond
