// Integration: the load driver's mixed workload from 16 clients through a conditioned mount for
// a few seconds. No operation may fail, every read must return what was written, the daemon's
// replies must leave close to their due time (a generous bound: the machine is shared), and the
// backing files must hold the last data written once the mount is stopped. The full 64-client,
// 60-second run with the precise figures is bench/load_test.sh.
#include <gtest/gtest.h>

#include "dmc/mount/mount_test_support.h"
#include "harness/load/load_driver.h"

namespace diskcond::mount::testing {
namespace {

using MountLoad = MountTest;

constexpr int64_t kGenerousLatenessP99Ns = 250'000'000;  // CI bound; measured figures: docs/load.md

TEST_F(MountLoad, SixteenClientsMixedWorkload) {
  start(ssd_profile(200, 100, 32));
  harness::load::LoadOptions o;
  o.dir = dir_;
  o.clients = 16;
  o.seconds = 3;
  o.file_bytes = 2 << 20;
  o.keep_files = true;
  const harness::load::LoadReport r = harness::load::run_load(o);
  EXPECT_EQ(r.errors, 0u) << (r.first_errors.empty() ? "" : r.first_errors[0]);
  EXPECT_EQ(r.data_errors, 0u) << (r.first_errors.empty() ? "" : r.first_errors[0]);
  EXPECT_GT(r.operations(), 16u);
  EXPECT_EQ(r.direct_clients, 8u);  // the odd clients really used O_DIRECT

  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok()) << st.error();
  ASSERT_TRUE(st->daemon_alive);
  const MountDiagnostics& d = st->diagnostics;
  EXPECT_GT(d.lateness_replies, r.operations() / 2);  // the daemon saw (most of) the requests
  EXPECT_LE(d.lateness_p50_ns, d.lateness_p99_ns);
  EXPECT_LE(d.lateness_p99_ns, d.lateness_max_ns);
  EXPECT_LT(d.lateness_p99_ns, kGenerousLatenessP99Ns);
  RecordProperty("operations", static_cast<int>(r.operations()));
  RecordProperty("lateness_p99_us", static_cast<int>(d.lateness_p99_ns / 1000));
  RecordProperty("lateness_max_us", static_cast<int>(d.lateness_max_ns / 1000));

  ASSERT_TRUE(control_->stop(dir_, false).ok());
  ASSERT_FALSE(is_conditioned_mount(dir_));
  for (size_t c = 0; c < o.clients; ++c) {
    EXPECT_EQ(harness::load::check_client_file(dir_, c, r.versions[c]), 0) << "client " << c;
  }
}

}  // namespace
}  // namespace diskcond::mount::testing
