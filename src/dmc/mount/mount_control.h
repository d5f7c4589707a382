// The boundary between the dmc command line (src/dmc/cli) and the machinery that runs a
// conditioned mount (src/dmc/mount): the CLI decides *what* a mount should be; a MountControl
// makes it so. Tests give the CLI a fake MountControl; dmc itself uses make_fuse_mount_control().
// It lives in the mount layer, which implements it, so that includes point down only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/crash_plan.h"
#include "core/fault_rules.h"
#include "core/profile.h"
#include "core/result.h"

namespace diskcond::mount {

enum class CacheMode {
  kWriteBack,  // page cache on; buffered writes are dirty data written back later, metadata goes
               // through a journal, fsync pays for it all (like Linux on a local disk)
  kPageCache,  // write-through: page cache on, each buffered write(2) waits for the model (macOS)
  kNoCache,    // every read and write reaches the daemon and is conditioned (FUSE direct_io)
};

struct MountSettings {
  Profile profile;  // what the mount behaves like
  CacheMode cache = CacheMode::kWriteBack;
  // Error rules the mount starts with (`dmc start|run -faults FILE`), in order; start() and run()
  // only: neither update() nor the settings store nor status carry them (fault_list() does).
  std::vector<FaultRule> faults = {};
  // `dmc start|run -crashable`: keep the undo log `dmc crash` needs (crash_recorder.h). Set by
  // start() and run(), reported by status(); update() and the settings store ignore it.
  bool crashable = false;
};

// What `dmc crash` did (MountControl::crash).
struct CrashOptions {
  uint64_t seed = 0;
  Tear tear = Tear::kNone;
};
struct CrashReport {
  uint64_t seed = 0;
  Tear tear = Tear::kNone;
  uint64_t files = 0;              // files whose data went back (in whole or in part)
  uint64_t lost_bytes = 0;         // written bytes that went back
  uint64_t survived_bytes = 0;     // written bytes not durable that tearing kept
  uint64_t removed = 0;            // entries created since the last commit, removed
  uint64_t restored = 0;           // renames undone, entries removed or replaced since brought back
  std::vector<std::string> paths;  // the first kMaxCrashPaths files changed or removed
  std::vector<std::string> errors;  // what could not be restored (one line each)
};
constexpr size_t kMaxCrashPaths = 50;

// Live figures a running daemon keeps (all since start).
struct MountCounters {
  uint64_t commands[3] = {};  // read, write, flush (indexed by Op); metadata ops count as writes
  uint64_t bytes[3] = {};
  double mean_added_delay_ns = 0;  // mean of (reply time - time the backing I/O finished)
  uint32_t queue_occupancy = 0;    // model pieces outstanding now
  double floor_read_ns = 0;        // fastest 4 KiB read service the mount has delivered (0 if none)
  double floor_write_ns = 0;
  // Where files live on the pretend device (core/layout.h), since start:
  uint64_t files_mapped = 0;     // placed from the backing file's extents (FIEMAP)
  uint64_t files_hashed = 0;     // hashed addresses: the backing file system has no FIEMAP
  uint64_t files_linear = 0;     // opened O_DIRECT: one linear region each
  uint64_t metadata_reads = 0;   // inode-table reads (inodes the kernel did not hold)
  uint64_t directory_reads = 0;  // directories' blocks read (directories the kernel did not hold)
  // Pages read back from the kernel's page cache after a write left them partly written, free as
  // on a local file system (partial_pages.h).
  uint64_t written_page_reads = 0;
  // Fault rules (core/fault_rules.h): how many are live now, and faults injected since start
  // (requests failed, shortened, corrupted or lost; stalls begun).
  uint64_t fault_rules = 0;
  uint64_t faults_injected = 0;
  // Stalls: 1 while the device is stalled, else 0; the time it has stood still since start.
  uint64_t stall_active = 0;
  uint64_t stalled_ns = 0;
};

// A running mount's error rules, with what each has done, and the mount's total.
struct FaultReport {
  std::vector<FaultRuleState> rules;  // in the order they were added
  uint64_t injected = 0;              // since start, removed rules' included
};

// Figures that explain a measurement (why a mount was slower than its profile), from a live
// daemon. Lateness is reply sent minus the time the model and scheduler wanted it sent
// (max(model completion - transit lead, backing I/O done)); early replies count as 0.
struct MountDiagnostics {
  uint64_t backing_bound_replies = 0;         // replies timed by the backing I/O, not the model
  double backing_bound_mean_excess_ns = 0;    // ... by how much they were later than the model
  int64_t backing_bound_excess_total_ns = 0;  // ... added up (grows; differences tell a period's)
  int64_t wake_ahead_ns = 0;                  // the reply scheduler's timer compensation
  int64_t max_lateness_ns = 0;                // the scheduler thread's worst lateness
  int64_t transit_lead_read_ns = 0;           // FUSE round trip subtracted from reads' model times
  int64_t transit_lead_write_ns = 0;          // ... and from writes'
  int64_t copy_lead_read_1mib_ns = 0;   // what copying 1 MiB adds to a read's lead (CopyBound)
  int64_t copy_lead_write_1mib_ns = 0;  // ... and to a write's
  uint64_t lateness_replies = 0;        // replies in the lateness histogram
  uint64_t lateness_early_replies = 0;  // ... that left before their time (wake-ahead)
  int64_t lateness_p50_ns = 0, lateness_p90_ns = 0, lateness_p99_ns = 0, lateness_p999_ns = 0;
  int64_t lateness_max_ns = 0;    // every reply's worst lateness
  int64_t lateness_total_ns = 0;  // every reply's lateness added up (grows, as above)
  // The model's completion minus arrival over every command it has served (grows, as above):
  // divided by MountCounters' commands, its mean service time, which a caller's measured latency
  // exceeds by the round trip and the lateness.
  int64_t model_latency_total_ns = 0;
  // Commands that reached the model after one the kernel sent later (ModelCounters::overtaken).
  uint64_t model_overtaken_commands = 0;
  // Idle CPUs polled while traffic flows (idle_poll.h): 0 off (DISKCOND_IDLE_POLL=off, or the
  // kernel's device refused: idle_poll_errno), 1 ready (no traffic now), 2 held now.
  uint64_t idle_poll_state = 0;
  uint64_t idle_poll_errno = 0;   // why the device refused (EACCES: not root); 0 = it did not
  uint64_t idle_poll_holds = 0;   // times the request was taken since start
  int64_t idle_poll_held_ns = 0;  // time it was held since start
  // Requests that arrived at the kernel's send (send_stamps.h) and that were looked up in vain
  // (arrived at the worker's read); the send-to-read time of the former added up (grows).
  uint64_t kernel_arrivals = 0;
  uint64_t kernel_arrival_misses = 0;
  int64_t handover_total_ns = 0;
  // Data requests that waited for ones the kernel sent before them to reach the model
  // (send_order.h), those whose wait ran out (SendOrder::kMaxWaitNs), and their waits added up.
  uint64_t send_order_waits = 0;
  uint64_t send_order_timeouts = 0;
  int64_t send_order_waited_ns = 0;
  // Replies a worker waited for itself, spinning (a lone request's short wait; reply_scheduler.h).
  uint64_t spun_replies = 0;
  // The CPUs the FUSE workers may run on now, one bit per CPU (worker_cpus.h; 0: not tracked),
  // and how often that changed since start.
  uint64_t worker_cpu_mask = 0;
  uint64_t worker_cpu_changes = 0;
  // The largest read and write requests the kernel sends (the mount option max_read and the
  // INIT reply's max_write, which bounds both: Filesystem::read_request_max_bytes; 0 before INIT).
  uint64_t read_request_max_bytes = 0;
  uint64_t write_request_max_bytes = 0;
  // Reads answered with their data spliced from the backing file's page cache (reply_pipes.h).
  uint64_t spliced_read_replies = 0;
};

struct MountStatus {
  // The conditioned directory holding the path asked about (the path itself or an ancestor) when
  // mounted; the path asked about otherwise. Canonical absolute path.
  std::string mount_point;
  bool mounted = false;       // a conditioned FUSE mount is on mount_point
  bool daemon_alive = false;  // false with mounted = true means the daemon died (stale mount)
  pid_t daemon_pid = 0;
  // Who may change it besides root: the user who mounted it when mounted, else the directory's
  // owner (0 when it cannot be read).
  uid_t owner = 0;
  MountSettings settings;  // valid when mounted && daemon_alive
  MountCounters counters;
  MountDiagnostics diagnostics;  // valid when mounted && daemon_alive
};

// How a command run by MountControl::run ended.
struct CommandEnd {
  int exit_code = 0;  // its exit status, or 128 + the signal that ended it (a shell's rule);
                      // 127 when it was not found, 126 when it could not be executed
  int signal = 0;     // the signal that ended it, 0 when it exited
  std::string error;  // why it could not be run (then exit_code is 126 or 127), else ""
  std::vector<std::string> warnings;  // teardown that did not go cleanly, one line each
};

class MountControl {
 public:
  virtual ~MountControl() = default;
  // Ok when `dir` may be conditioned; else why not, in one line: "/", a pseudo file system
  // (proc, sysfs, devtmpfs, ...), or one of `own_dirs` (the caller's own directories, such as its
  // settings store) or the machinery's own run directory, or a parent of one. Ok for a directory
  // a conditioned mount holds (start refuses that itself). Changes nothing.
  virtual Status check_conditionable(const std::string& dir,
                                     const std::vector<std::string>& own_dirs) = 0;
  // Mounts a conditioned filesystem over `dir` in place and returns once it serves.
  // Errors: not a directory, already conditioned, not conditionable (check_conditionable without
  // `own_dirs`), not root, mount failure ... (one line each).
  virtual Status start(const std::string& dir, const MountSettings& settings) = 0;
  // Unmounts. Without `force`, refuses with a clear message while files under it are open;
  // with `force`, detaches lazily. Acknowledged writes are on the backing filesystem afterwards.
  // Also clears a stale mount left by a dead daemon.
  virtual Status stop(const std::string& dir, bool force) = 0;
  // The conditioned mount holding `dir`: on `dir` itself, or on the conditioned directory `dir`
  // is inside (mount_point says which). Never fails for an existing directory that no
  // conditioned mount holds: mounted = false, mount_point = `dir`.
  virtual Result<MountStatus> status(const std::string& dir) = 0;
  // Changes a running mount's settings live; commands arriving afterwards use them.
  virtual Status update(const std::string& dir, const MountSettings& settings) = 0;
  // sync(2) for the conditioned mount `dir`: returns once everything written to it is durable
  // on the backing disk and on the pretend one (journal committed, dirty data written back,
  // cache flushed: what the model charges for that). Anyone may sync.
  virtual Status sync(const std::string& dir) = 0;
  // Runs `command` (argv; argv[0] looked up in $PATH) with `dir` conditioned for it and its
  // children only, in a private mount namespace (for an ordinary user, inside a user namespace
  // mapping only their own uid and gid); nothing else on the machine sees the mount, and no state
  // outside the namespace says it exists. Returns once the command has exited and the mount and
  // its daemon are gone. Any user. Errors (before the command started; nothing changed): not a
  // directory, already conditioned or inside a conditioned mount, not conditionable, /dev/fuse or
  // user namespaces unavailable (what to enable, in one line), the mount failed.
  virtual Result<CommandEnd> run(const std::string& dir, const MountSettings& settings,
                                 const std::vector<std::string>& command) = 0;

  // Fault rules of the running mount `dir` (core/fault_rules.h), live. Adding, removing,
  // clearing and releasing need root (the daemon checks its caller), listing does not.
  // Adds `rule` (REQUIRES: a seed when it has a probability); returns its id.
  virtual Result<uint64_t> fault_add(const std::string& dir, const FaultRule& rule) = 0;
  virtual Result<FaultReport> fault_list(const std::string& dir) = 0;
  // Errors: no rule `id`.
  virtual Status fault_remove(const std::string& dir, uint64_t id) = 0;
  virtual Status fault_clear(const std::string& dir) = 0;
  // Ends the stalls in progress (those until released too); returns how many rules had one.
  virtual Result<uint64_t> fault_release(const std::string& dir) = 0;
  // The latest faults injected (FaultRules::log, at most kFaultLogCapacity), oldest first. Anyone.
  virtual Result<std::vector<FaultEvent>> fault_log(const std::string& dir) = 0;

  // A power cut on the crashable mount `dir` (root, or the ordinary user who made it): what the
  // pretend disk had not made durable goes back (torn by `options`), the mount is taken down like
  // 'stop -force', and the directory is left as a disk would be after the cut. Errors: not
  // conditioned, not started -crashable, neither root nor its maker, the daemon does not answer
  // or cannot cut the mount off (a user's fusermount3 mount outside `dmc run`).
  virtual Result<CrashReport> crash(const std::string& dir, const CrashOptions& options) = 0;
};

std::unique_ptr<MountControl> make_fuse_mount_control();

}  // namespace diskcond::mount
