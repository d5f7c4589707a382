// Test helpers for `rawio report`: a scratch history database holding the seed's runs, and
// running run_report with its output captured.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "rawio/history/history_store.h"
#include "rawio/report/report_command.h"
#include "rawio/test_util.h"

namespace diskcond::rawio::report::testing {

struct SeedFigures {
  double kib_per_sec;
  uint64_t per_sec;
  double user_pct, sys_pct;
};

// A 10-second test whose K/sec and /sec print as given (as formatter_test.cc does), with a
// latency histogram around `latency_us` and one interval sample per second.
inline RunResult seed_test(TestKind kind, SeedFigures f, uint64_t latency_us) {
  RunResult r;
  r.spec.kind = kind;
  r.spec.transfer_bytes = 16384;
  r.elapsed_ns = 10'000'000'000;
  r.bytes = static_cast<uint64_t>(f.kib_per_sec * 1024.0 * 10.0 + 0.5);
  r.transfers = f.per_sec * 10;
  r.cpu.user_ns = static_cast<int64_t>(f.user_pct / 100.0 * 1e10);
  r.cpu.sys_ns = static_cast<int64_t>(f.sys_pct / 100.0 * 1e10);
  r.engine = "psync";
  for (uint64_t i = 1; i <= 100; ++i) r.latency.record(latency_us * 1000 * i / 50);
  for (int s = 0; s < 10; ++s) r.intervals.push_back({r.bytes / 10, r.transfers / 10});
  return r;
}

// One of the seed's four lines (RR, SR, RW, SW): its figures and the latency around which
// seed_test() draws its histogram.
struct SeedLine {
  SeedFigures figures;
  uint64_t latency_us;
};

// The seed's 1 GiB block device `device` with 512-byte sectors, reported as `id`, whose random
// read, sequential read, random write and sequential write gave `lines`, in that order.
inline TargetReport seed_device(const std::string& id, const std::string& device,
                                const std::array<SeedLine, 4>& lines) {
  constexpr TestKind kKinds[] = {TestKind::kRandomRead, TestKind::kSequentialRead,
                                 TestKind::kRandomWrite, TestKind::kSequentialWrite};
  TargetReport report{id, device, "block_device", device, 1 << 30, 512, {}};
  for (size_t i = 0; i < lines.size(); ++i)
    report.tests.push_back(seed_test(kKinds[i], lines[i].figures, lines[i].latency_us));
  return report;
}

// The seed's plain disk (rawio -a /dev/rda1s1e) and its vinum volume (rawio -a -v 1
// /dev/vinum/test).
inline TargetReport seed_plain() {
  return seed_device("plain", "/dev/rda1s1e",
                     {{{{874.8, 54, 0.1, 8.8}, 18000},
                       {{2683.1, 164, 0.9, 85.8}, 6000},
                       {{868.0, 54, 0.2, 10.7}, 18000},
                       {{1380.3, 84, 0.1, 16.4}, 12000}}});
}
inline TargetReport seed_vinum() {
  return seed_device("vinum", "/dev/vinum/test",
                     {{{{480.8, 30, 0.2, 18.6}, 33000},
                       {{5001.7, 305, 0.9, 88.8}, 3000},
                       {{478.2, 29, 0.2, 15.4}, 34000},
                       {{1244.2, 76, 0.2, 53.6}, 13000}}});
}

// A scratch directory with rawio.db holding `reports`, saved one run each, in order.
class SeedDatabase {
 public:
  explicit SeedDatabase(const std::vector<TargetReport>& reports) {
    auto store = history::HistoryStore::open(path(), history::Database::Mode::kCreate);
    ok_ = store.ok();
    for (const auto& r : reports) {
      if (!ok_) return;
      history::RunContext context{"2026-11-30T06:42:21Z", "bsdbox", "FreeBSD 4.0", "psync",
                                  R"({"seed":1})"};
      auto ids = store->save(context, {r});
      ok_ = ids.ok();
    }
  }
  bool ok() const { return ok_; }
  std::string path() const { return dir_.file("rawio.db"); }
  std::string file(const std::string& name) const { return dir_.file(name); }

 private:
  rawio::testing::ScratchDir dir_;
  bool ok_ = true;
};

struct Captured {
  int exit_code;
  std::string out;
  std::string err;
};

inline std::string read_all(std::FILE* f) {
  std::string text;
  std::rewind(f);
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  std::fclose(f);
  return text;
}

inline Captured capture_report(const ReportInvocation& inv) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  int code = run_report(inv, out, err);
  return {code, read_all(out), read_all(err)};
}

}  // namespace diskcond::rawio::report::testing
