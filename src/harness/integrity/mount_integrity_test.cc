// Integration: a conditioned mount never loses or corrupts data. Four clients run seeded random
// operations (see op_engine.h) through one real mount, each checked after every step against an
// in-memory reference; at the end every file is compared byte for byte through the mount and,
// after stop, in the backing directory.
//
// DISKCOND_INTEGRITY_OPS scales the operations per test (default 4000; bench/integrity_soak.sh
// uses 100000); DISKCOND_INTEGRITY_SEED picks the seed (default 1). A failure prints the seed,
// step, operation and first differing offset: rerun with that seed to reproduce.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <thread>

#include "dmc/mount/mount_test_support.h"
#include "harness/integrity/concurrent_clients.h"

namespace diskcond::mount::testing {
namespace {

using harness::integrity::ClientsOptions;
using harness::integrity::ClientsRun;
using harness::integrity::Mismatch;
using harness::integrity::Op;

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

ClientsOptions default_options(const std::string& dir) {
  ClientsOptions o;
  o.engine.dir = dir;
  o.clients = 4;
  o.seed = env_number("DISKCOND_INTEGRITY_SEED", 1);
  o.total_ops = env_number("DISKCOND_INTEGRITY_OPS", 4000);
  return o;
}

class MountIntegrity : public MountTest {
 protected:
  // Runs the clients through the mount (with `alongside` in another thread until they finish),
  // verifies through the mount, stops, verifies the backing directory. Every mismatch is a test
  // failure; prints a summary.
  void run_and_verify(const ClientsOptions& o,
                      const std::function<void(const std::atomic<bool>& done)>& alongside = {}) {
    const auto t0 = std::chrono::steady_clock::now();
    std::atomic<bool> done{false};
    std::thread other;
    if (alongside) other = std::thread([&] { alongside(done); });
    const ClientsRun run = harness::integrity::run_clients(o);
    done = true;
    if (other.joinable()) other.join();
    std::vector<Mismatch> found = run.mismatches();
    for (const auto& m : harness::integrity::verify_clients(run, dir_)) found.push_back(m);
    auto s = control_->stop(dir_, false);
    ASSERT_TRUE(s.ok()) << s.error();
    ASSERT_FALSE(is_conditioned_mount(dir_));
    for (auto m : harness::integrity::verify_clients(run, dir_)) {
      m.detail = "in the backing directory after stop: " + m.detail;
      found.push_back(m);
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t counts[static_cast<size_t>(Op::kCount)] = {};
    for (const auto& r : run.reports) {
      for (size_t i = 0; i < std::size(counts); ++i) counts[i] += r.op_counts[i];
    }
    std::cout << "integrity: seed=" << o.seed << " clients=" << o.clients << " ops=" << run.steps()
              << " mismatches=" << found.size() << " seconds=" << secs
              << (run.direct_refused() ? " (O_DIRECT refused with EINVAL: skipped)" : "") << "\n ";
    for (size_t i = 0; i < std::size(counts); ++i) {
      std::cout << " " << harness::integrity::op_name(static_cast<Op>(i)) << "=" << counts[i];
    }
    std::cout << "\n";
    EXPECT_EQ(run.steps(), o.total_ops / o.clients * o.clients);
    for (const auto& m : found) ADD_FAILURE() << m.describe();
  }
};

TEST_F(MountIntegrity, RandomOperationsThroughAFastSSD) {
  start(ssd_profile(2000, 20));
  run_and_verify(default_options(dir_));
}

TEST_F(MountIntegrity, RandomOperationsWhileTheProfileChangesLive) {
  start(ssd_profile(2000, 20));
  std::atomic<int> updates{0}, failed_updates{0};
  // Alternates a slower, shallower SSD with the fast one every ~100 ms.
  run_and_verify(default_options(dir_), [&](const std::atomic<bool>& done) {
    const Profile profiles[] = {ssd_profile(500, 100, 4), ssd_profile(2000, 20)};
    for (int i = 0; !done; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (done) break;
      const bool ok = control_->update(dir_, MountSettings{profiles[i % 2]}).ok();
      ++(ok ? updates : failed_updates);
    }
  });
  std::cout << "live profile updates: " << updates << " (failed: " << failed_updates << ")\n";
  EXPECT_GE(updates, 1) << "the profile never changed during the run";
  EXPECT_EQ(failed_updates, 0);
}

TEST_F(MountIntegrity, RandomOperationsWithoutThePageCache) {
  start(ssd_profile(2000, 20), CacheMode::kNoCache);
  ClientsOptions o = default_options(dir_);
  // In no-cache (FUSE direct_io) mode this kernel/libfuse refuses every MAP_SHARED mapping with
  // ENODEV (no FUSE_DIRECT_IO_ALLOW_MMAP), read-only ones included: mmap writes are left out and
  // mmap reads use MAP_PRIVATE, which the kernel serves after dropping its cached pages.
  o.engine.mmap_writes = false;
  o.engine.mmap_shared_reads = false;
  run_and_verify(o);
}

// The checker can fail through a mount too: a byte changed behind client 0's back (by another
// writer, through the mount) mid-run is reported.
TEST_F(MountIntegrity, CheckerReportsCorruptionThroughTheMount) {
  start(ssd_profile(2000, 20));
  harness::integrity::EngineOptions o;
  o.dir = dir_;
  o.seed = 3;
  o.ops = 600;
  harness::integrity::OpEngine* engine = nullptr;
  o.before_step = [&](uint64_t step) {
    if (step != 300) return;
    for (size_t s = 0; s < engine->model().slot_count(); ++s) {
      if (!engine->model().occupied(s) || engine->model().size(s) == 0) continue;
      int fd = open(path("f" + std::to_string(s)).c_str(), O_RDWR);
      ASSERT_GE(fd, 0);
      const off_t at = static_cast<off_t>(engine->model().size(s) / 2);
      const uint8_t b = engine->model().contents(s)[at] ^ 0xff;
      ASSERT_EQ(pwrite(fd, &b, 1, at), 1);
      close(fd);
    }
  };
  harness::integrity::OpEngine e(o);
  engine = &e;
  const auto r = e.run();
  const auto m = r.mismatch ? r.mismatch : e.verify_all(dir_);
  ASSERT_TRUE(m) << "corruption went unnoticed";
  std::cout << "reported: " << m->describe() << "\n";
  EXPECT_GE(m->step, 300u);
  EXPECT_GE(m->offset, 0);
}

}  // namespace
}  // namespace diskcond::mount::testing
