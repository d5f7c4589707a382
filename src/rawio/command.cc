#include "rawio/command.h"

#include <fmt/format.h>

#include <string.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "core/one_line.h"
#include "rawio/cleanup.h"
#include "rawio/engine.h"
#include "rawio/formatter.h"
#include "rawio/history/history_store.h"
#include "rawio/honesty.h"
#include "rawio/latency_log_file.h"
#include "rawio/progress_line.h"
#include "rawio/runner.h"
#include "rawio/safety.h"
#include "rawio/steady_state_watch.h"
#include "rawio/verify.h"

namespace diskcond::rawio {
namespace {

struct PlannedTarget {
  Target target;
  std::string id;
  uint64_t area_bytes = 0;
};

// Removes a test file rawio made when the run ends, however it ends.
class TestFileGuard {
 public:
  explicit TestFileGuard(const Target& target) : target_(target) {}
  ~TestFileGuard() { remove_test_file(target_); }

 private:
  const Target& target_;
};

void say(std::FILE* err, const std::string& line) {
  fmt::print(err, "rawio: {}\n", one_line(line));
}

std::string row_id(const Invocation& inv, size_t index) {
  if (inv.ids.size() == inv.targets.size()) return inv.ids[index];
  if (inv.targets.size() == 1) return inv.ids.empty() ? "anon" : inv.ids[0];
  std::filesystem::path p = std::filesystem::absolute(inv.targets[index]).lexically_normal();
  std::string name = p.filename().string();
  if (name.empty()) name = p.parent_path().filename().string();
  return name.empty() ? inv.targets[index] : name;
}

bool any_write(const Invocation& inv) {
  if (inv.precondition_passes > 0) return true;
  for (TestKind kind : inv.tests) {
    if (is_write(kind)) return true;
  }
  return false;
}

TestSpec spec_for(const Invocation& inv, TestKind kind, uint64_t area_bytes) {
  TestSpec spec;
  spec.kind = kind;
  spec.transfer_bytes = inv.transfer_bytes;
  spec.workers = inv.workers;
  spec.iodepth = inv.iodepth;
  spec.submit_batch = inv.submit_batch;
  spec.area_bytes = area_bytes;
  spec.transfer_count = !inv.count_based
                            ? kUnlimitedTransfers
                            : inv.transfer_count.value_or(area_bytes / inv.transfer_bytes);
  spec.time_limit_ns = inv.time_limit_ns;
  if (inv.steady_state) {
    // The watcher stops the test; the deadline only backs it up (60 s is the longest chosen round).
    const int64_t window = inv.ss_window_ns > 0 ? inv.ss_window_ns : 60'000'000'000;
    spec.time_limit_ns = window * static_cast<int64_t>(inv.ss_max_rounds);
  }
  spec.warmup_ns = inv.warmup_ns;
  spec.seed = inv.seed;
  spec.rate_per_sec = inv.rate_per_sec;
  spec.arrival = inv.arrival;
  return spec;
}

// The area a target is tested over: -n, capped at what exists, in whole transfers.
Result<uint64_t> plan_area(const Target& t, const Invocation& inv, std::FILE* err) {
  uint64_t area = 0;
  if (t.create) {
    area = inv.area_bytes.value_or(kDefaultCreatedFileBytes);
  } else {
    area = inv.area_bytes.value_or(t.size_bytes);
    if (area > t.size_bytes) {
      say(err, fmt::format("{} has only {} bytes: testing those instead of {}", t.name,
                           t.size_bytes, area));
      area = t.size_bytes;
    }
  }
  const uint64_t given = area;  // the size errors name: before rounding down to whole transfers
  area -= area % inv.transfer_bytes;
  uint64_t needed = static_cast<uint64_t>(inv.transfer_bytes);
  for (TestKind kind : inv.tests) {
    if (!is_random(kind)) needed = static_cast<uint64_t>(inv.transfer_bytes) * inv.workers;
  }
  if (area < needed) {
    return make_error(fmt::format(
        "area on {} ({} bytes) is too small: these tests need at least {} bytes ({} worker(s) x "
        "{}-byte transfers); use a larger -n, a smaller -s or fewer -p workers",
        t.name, given, needed, needed / inv.transfer_bytes, inv.transfer_bytes));
  }
  if (t.create) {
    if (Status room = check_room_for_test_file(t, area); !room) return make_error(room.error());
  }
  return area;
}

Status validate_all(const PlannedTarget& p, const Invocation& inv) {
  for (TestKind kind : inv.tests) {
    if (Status s = validate_spec(p.target, spec_for(inv, kind, p.area_bytes)); !s) return s;
  }
  return ok_status();
}

// Every worker fills depth x transfer bytes of buffers before the test starts: refuses, before
// anything is touched, a combination that would take more than half of the machine's memory
// (-p 1024 -q 4096 -s 1g would be 4 PiB).
Status check_buffer_memory(const Invocation& inv) {
  const unsigned depth = inv.engine->caps.synchronous ? 1 : inv.iodepth;
  const unsigned __int128 bytes =
      static_cast<unsigned __int128>(inv.workers) * depth * inv.transfer_bytes;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return ok_status();
  const uint64_t half_memory = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_bytes) / 2;
  if (bytes <= half_memory) return ok_status();
  return make_error(fmt::format(
      "{} worker(s) x depth {} x {}-byte transfers need {} bytes of buffers, more than half of "
      "this "
      "machine's memory ({} bytes); use fewer -p workers, a lower -q or a smaller -s",
      inv.workers, depth, inv.transfer_bytes,
      static_cast<uint64_t>(std::min<unsigned __int128>(bytes, UINT64_MAX)), half_memory * 2));
}

// Everything that can be decided without touching data. Returns an exit code, or kExitOk.
int plan_targets(const Invocation& inv, std::vector<PlannedTarget>& plan, std::FILE* err) {
  if (Status s = check_buffer_memory(inv); !s) return say(err, s.error()), kExitUsage;
  for (size_t i = 0; i < inv.targets.size(); ++i) {
    auto target = inspect_target(inv.targets[i]);
    if (!target) return say(err, target.error()), kExitUsage;
    PlannedTarget p{std::move(*target), row_id(inv, i), 0};
    auto area = plan_area(p.target, inv, err);
    if (!area) return say(err, area.error()), kExitUsage;
    p.area_bytes = *area;
    if (p.target.create) {
      // Alignment is only known once the file exists; 512 bytes is the least any device needs.
      if (inv.direct != DirectMode::kOff && inv.transfer_bytes % 512 != 0) {
        say(err,
            fmt::format("transfer size {} is not a multiple of 512 bytes, which O_DIRECT needs "
                        "(use --direct=off for buffered I/O)",
                        inv.transfer_bytes));
        return kExitUsage;
      }
    } else {
      std::string warning;
      if (Status s = choose_direct_io(p.target, inv.direct, &warning); !s)
        return say(err, s.error()), kExitUsage;
      if (!warning.empty()) say(err, warning);
      if (Status s = validate_all(p, inv); !s) return say(err, s.error()), kExitUsage;
    }
    plan.push_back(std::move(p));
  }
  if (any_write(inv)) {
    for (auto& p : plan) {
      WriteVerdict verdict = check_write_allowed(p.target, inv.force_write);
      if (!verdict.allowed) return say(err, verdict.reason), kExitRefused;
      p.target.exclusive_writes = p.target.kind == TargetKind::kBlockDevice && !verdict.forced;
    }
  }
  return kExitOk;
}

// Makes the test file of a directory or new-file target and settles its O_DIRECT use.
int prepare_test_file(PlannedTarget& p, const Invocation& inv, std::FILE* err) {
  if (!p.target.create) return kExitOk;
  if (!inv.json || inv.verbosity > 0) {
    say(err, fmt::format("creating {}-byte test file {}", p.area_bytes, p.target.io_path));
  }
  if (Status s = create_test_file(p.target, p.area_bytes); !s)
    return say(err, s.error()), kExitIoError;
  std::string warning;
  if (Status s = choose_direct_io(p.target, inv.direct, &warning); !s)
    return say(err, s.error()), kExitUsage;
  if (!warning.empty()) say(err, warning);
  if (Status s = validate_all(p, inv); !s) return say(err, s.error()), kExitUsage;
  return kExitOk;
}

// Opens (or creates) the history database of --save, before any test runs: a database that
// cannot be written is an error before anything is measured, not after.
Result<history::HistoryStore> open_history(const Invocation& inv) {
  std::string path = inv.db_path.empty() ? history::default_database_path() : inv.db_path;
  if (path.empty())
    return make_error(
        "--save: neither XDG_DATA_HOME nor HOME is set; give the database with --db PATH");
  auto store = history::HistoryStore::open(path, history::Database::Mode::kCreate);
  if (!store) return make_error("--save: " + store.error());
  return store;
}

// Stores the reports (--save) and says which runs they became. Returns an exit code.
int save_reports(const Invocation& inv, history::HistoryStore& store,
                 const std::vector<TargetReport>& reports, bool partial, std::FILE* err) {
  history::RunContext context = history::machine_context();
  context.engine = std::string(inv.engine->name);
  context.options_json = options_json(inv).dump();
  auto ids = store.save(context, reports);
  if (!ids) return say(err, "--save: " + ids.error()), kExitIoError;
  std::string list;
  for (int64_t id : *ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
  say(err, fmt::format("saved as {}run{} {}", partial ? "partial " : "",
                       ids->size() == 1 ? "" : "s", list));
  return kExitOk;
}

// --precondition: passes of sequential writes over the area (128 KiB transfers where the area
// and the alignment allow, else the test's transfer size), one worker, before the tests. Says
// what it did on stderr. Returns an exit code.
int precondition(const PlannedTarget& p, const Invocation& inv, std::FILE* err) {
  if (inv.precondition_passes == 0) return kExitOk;
  constexpr uint32_t kPreconditionBytes = 128 * 1024;
  TestSpec spec = spec_for(inv, TestKind::kSequentialWrite, p.area_bytes);
  if (p.area_bytes % kPreconditionBytes == 0 && kPreconditionBytes % p.target.sector_bytes == 0)
    spec.transfer_bytes = kPreconditionBytes;
  spec.workers = 1;
  spec.transfer_count = p.area_bytes / spec.transfer_bytes * inv.precondition_passes;
  spec.time_limit_ns = 86'400'000'000'000;  // a day: the passes end it
  spec.warmup_ns = 0;
  spec.rate_per_sec = 0;
  RunOptions options;
  options.engine = inv.engine;
  options.cancel = &cancel_requested();
  auto result = run_test(p.target, spec, options);
  if (!result) return say(err, "precondition: " + result.error()), kExitIoError;
  say(err, fmt::format("preconditioned {}: {} pass{} of {}-byte sequential writes over {} bytes "
                       "in {:.1f} s{}",
                       p.id, inv.precondition_passes, inv.precondition_passes == 1 ? "" : "es",
                       spec.transfer_bytes, p.area_bytes, result->seconds(),
                       result->stopped_by == StopReason::kCancelled ? " (interrupted)" : ""));
  return result->stopped_by == StopReason::kCancelled ? kExitIoError : kExitOk;
}

// What the honesty checks need to know about a target, once its test file exists.
TargetFacts target_facts(const Target& t, const Invocation& inv) {
  TargetFacts facts;
  facts.null_engine = inv.engine->name == "null";
  facts.block_device = t.kind == TargetKind::kBlockDevice;
  facts.direct = t.direct;
  facts.direct_refused = t.direct_refused;
  facts.limit = facts.block_device ? block_device_limit(t.rdev) : file_limit(t.io_path);
  return facts;
}

// With --repeat N, each target's N reports (in order) shown as ID#1 ... ID#N.
std::vector<TargetReport> label_repeats(std::vector<TargetReport> reports, unsigned repeat) {
  for (size_t i = 0; i < reports.size(); ++i) reports[i].id += fmt::format("#{}", i % repeat + 1);
  return reports;
}

}  // namespace

int run_command(const Invocation& inv, std::FILE* out, std::FILE* err) {
  std::vector<PlannedTarget> plan;
  if (int code = plan_targets(inv, plan, err); code != kExitOk) return code;
  if (inv.engine->caps.synchronous && inv.iodepth > 1) {
    say(err, fmt::format("the {} engine is synchronous: --iodepth {} acts as 1 (use io_uring or "
                         "libaio for a deeper queue)",
                         inv.engine->name, inv.iodepth));
  }
  // The log before the history: a log that cannot be made leaves no database made either, and
  // a database that cannot be opened removes the log file it would have left.
  std::FILE* latency_log = nullptr;
  std::optional<LatencyLogFile> latency_log_file;
  if (!inv.latency_log.empty()) {
    if (Status s = check_latency_log_path(inv.latency_log, inv.targets); !s)
      return say(err, s.error()), kExitUsage;
    auto opened = LatencyLogFile::open(inv.latency_log);
    if (!opened) return say(err, opened.error()), kExitIoError;
    latency_log_file.emplace(std::move(*opened));
    latency_log = latency_log_file->get();
  }
  std::optional<history::HistoryStore> history;
  if (inv.save) {
    auto store = open_history(inv);
    if (!store) {
      if (latency_log_file) latency_log_file->discard();
      return say(err, store.error()), kExitIoError;
    }
    history.emplace(std::move(*store));
  }
  if (latency_log) std::fputs(kTransferLogHeader, latency_log);
  install_signal_handlers();
  ProgressLine progress(err, inv.progress);
  std::vector<TargetReport> reports;
  // An interrupt (the first SIGINT or SIGTERM) stops the test running; what was measured up to
  // then, that test included, is printed and saved, marked partial, and rawio exits 128 + signal.
  bool interrupted = false;
  bool verify_failed = false;
  for (auto& p : plan) {
    TestFileGuard guard(p.target);
    if (int code = prepare_test_file(p, inv, err); code != kExitOk) {
      if (!cancel_requested().load()) return code;
      interrupted = true;
      break;
    }
    if (int code = precondition(p, inv, err); code != kExitOk) {
      if (!cancel_requested().load()) return code;
      interrupted = true;
      break;
    }
    const TargetFacts facts = target_facts(p.target, inv);
    for (unsigned repeat = 1; repeat <= inv.repeat && !interrupted; ++repeat) {
      TargetReport report{p.id,
                          p.target.name,
                          std::string(target_kind_key(p.target.kind)),
                          p.target.io_path,
                          p.area_bytes,
                          p.target.sector_bytes,
                          {}};
      for (TestKind kind : inv.tests) {
        RunOptions options;
        options.engine = inv.engine;
        options.cancel = &cancel_requested();
        if (progress.active()) {
          options.on_progress = [&](const Progress& pr) { progress.show(p.target.name, pr); };
        }
        Status logged = ok_status();
        if (latency_log) {
          options.on_transfer_logs = [&](const std::vector<const TransferLog*>& logs,
                                         int64_t start) {
            logged = write_transfer_log(latency_log, p.id, kind, start, logs);
          };
        }
        std::optional<SteadyStateWatch> watch;
        if (inv.steady_state) {
          watch.emplace(inv.ss_window_ns, inv.ss_max_rounds);
          options.watcher = &*watch;
        }
        auto result = run_test(p.target, spec_for(inv, kind, p.area_bytes), options);
        progress.clear();
        if (!result) return say(err, result.error()), kExitIoError;
        if (!logged) return say(err, logged.error()), kExitIoError;
        if (watch) {
          result->steady_state = steady_state_of(result->intervals, result->elapsed_ns,
                                                 watch->window_ns(), inv.ss_max_rounds);
        }
        if (inv.verify && is_write(kind) && result->stopped_by != StopReason::kCancelled) {
          std::vector<uint64_t> issued;
          for (const WorkerFigures& w : result->workers) issued.push_back(w.issued);
          auto checked = verify_written(p.target, result->spec, issued);
          if (!checked) return say(err, checked.error()), kExitIoError;
          if (!checked->ok()) {
            verify_failed = true;
            say(err, fmt::format("VERIFY FAILED on {} {}: {} of {} transfers read back differ from "
                                 "what was written; first: {}",
                                 p.id, test_code(kind), checked->mismatched,
                                 checked->transfers_checked, checked->first_bad));
          }
          result->verify = std::move(*checked);
        }
        interrupted = result->stopped_by == StopReason::kCancelled;
        report.tests.push_back(std::move(*result));
        if (interrupted) break;
      }
      report.cautions = honesty_cautions(facts, report);
      if (!report.tests.empty()) reports.push_back(std::move(report));
    }
    if (interrupted) break;
  }
  if (interrupted) say(err, "interrupted; the results so far are partial; test files removed");
  if (!reports.empty()) {
    auto formatter = inv.json ? make_json_formatter(options_json(inv))
                              : make_text_formatter(inv.verbosity, inv.units);
    std::string text =
        formatter->render(inv.repeat > 1 ? label_repeats(reports, inv.repeat) : reports);
    std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
  }
  int code = history && !reports.empty() ? save_reports(inv, *history, reports, interrupted, err)
                                         : kExitOk;
  if (interrupted) return 128 + cancel_signal();
  return code == kExitOk && verify_failed ? kExitVerifyFailed : code;
}

}  // namespace diskcond::rawio
