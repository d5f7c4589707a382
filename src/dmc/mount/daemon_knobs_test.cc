#include "dmc/mount/daemon_knobs.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace diskcond::mount {
namespace {

DaemonKnobs knobs(const std::map<std::string, std::string>& env) {
  return DaemonKnobs::from_environment([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(MountDaemonKnobs, UnsetKnobsAreTheDefaults) {
  const DaemonKnobs k = knobs({});
  EXPECT_TRUE(k == DaemonKnobs{});
  EXPECT_TRUE(k.transit_lead && k.kernel_arrival && k.send_order && k.huge_receive &&
              k.park_spares && k.receive_cpu && k.worker_spin && k.worker_cpus &&
              k.splice_replies);                              // on unless off
  EXPECT_FALSE(k.fuse_uring || k.clone_fd || k.fuse_splice);  // off unless turned on
  EXPECT_EQ(k.max_read, 256u * 1024);                         // reads in pieces of 256 KiB
  EXPECT_EQ(k.max_write, 256u * 1024);                        // and writes too
}

TEST(MountDaemonKnobs, MaxReadOffLeavesTheKernelsLimitAndACountSetsIt) {
  EXPECT_EQ(knobs({{"DISKCOND_MAX_READ", "off"}}).max_read, 0u);
  EXPECT_EQ(knobs({{"DISKCOND_MAX_READ", "131072"}}).max_read, 131072u);
  EXPECT_EQ(knobs({{"DISKCOND_MAX_READ", "0"}}).max_read, DaemonKnobs::kDefaultMaxRead);
}

TEST(MountDaemonKnobs, MaxWriteOffLeavesTheDaemonsLimitAndACountSetsIt) {
  EXPECT_EQ(knobs({{"DISKCOND_MAX_WRITE", "off"}}).max_write, 0u);
  EXPECT_EQ(knobs({{"DISKCOND_MAX_WRITE", "524288"}}).max_write, 524288u);
  EXPECT_EQ(knobs({{"DISKCOND_MAX_WRITE", "0"}}).max_write, DaemonKnobs::kDefaultMaxWrite);
}

TEST(MountDaemonKnobs, OffTurnsAKnobOffAndOneTurnsAnOptInOn) {
  const DaemonKnobs expected{.idle_poll = false,
                             .reply_cpu = false,
                             .transit_lead = false,
                             .copy_lead = false,
                             .killpriv_v2 = false,
                             .kernel_arrival = false,
                             .send_order = false,
                             .huge_receive = false,
                             .park_spares = false,
                             .receive_cpu = false,
                             .worker_spin = false,
                             .worker_cpus = false,
                             .splice_replies = false,
                             .fuse_uring = true,
                             .clone_fd = true,
                             .fuse_splice = true,
                             .workers = 4,
                             .inode_fd_budget = 32,
                             .max_read = 131072,
                             .max_write = 524288};
  EXPECT_TRUE(knobs({{"DISKCOND_IDLE_POLL", "off"},      {"DISKCOND_REPLY_CPU", "off"},
                     {"DISKCOND_TRANSIT_LEAD", "off"},   {"DISKCOND_COPY_LEAD", "off"},
                     {"DISKCOND_KILLPRIV_V2", "off"},    {"DISKCOND_KERNEL_ARRIVAL", "off"},
                     {"DISKCOND_SEND_ORDER", "off"},     {"DISKCOND_HUGE_RECEIVE", "off"},
                     {"DISKCOND_PARK_SPARES", "off"},    {"DISKCOND_RECEIVE_CPU", "off"},
                     {"DISKCOND_WORKER_SPIN", "off"},    {"DISKCOND_WORKER_CPUS", "off"},
                     {"DISKCOND_SPLICE_REPLIES", "off"}, {"DISKCOND_FUSE_URING", "1"},
                     {"DISKCOND_FUSE_CLONE_FD", "1"},    {"DISKCOND_FUSE_SPLICE", "1"},
                     {"DISKCOND_FUSE_WORKERS", "4"},     {"DISKCOND_INODE_FD_BUDGET", "32"},
                     {"DISKCOND_MAX_READ", "131072"},    {"DISKCOND_MAX_WRITE", "524288"}}) ==
              expected);
}

TEST(MountDaemonKnobs, TheWorkerLoopGetsItsKnobs) {
  const WorkerLoopConfig on = DaemonKnobs{}.worker_loop(8);
  EXPECT_EQ(on.max_workers, 8u);
  EXPECT_TRUE(on.huge_buffers && on.park_spares && on.receive_by_cpu);
  const WorkerLoopConfig off = knobs({{"DISKCOND_HUGE_RECEIVE", "off"},
                                      {"DISKCOND_PARK_SPARES", "off"},
                                      {"DISKCOND_RECEIVE_CPU", "off"}})
                                   .worker_loop(3);
  EXPECT_EQ(off.max_workers, 3u);
  EXPECT_FALSE(off.huge_buffers || off.park_spares || off.receive_by_cpu);
}

// Anything but the exact word keeps the default: a typo never turns a part off.
TEST(MountDaemonKnobs, OtherValuesKeepTheDefaults) {
  const DaemonKnobs k = knobs({{"DISKCOND_TRANSIT_LEAD", "OFF"},
                               {"DISKCOND_COPY_LEAD", "0"},
                               {"DISKCOND_KERNEL_ARRIVAL", ""},
                               {"DISKCOND_FUSE_URING", "yes"},
                               {"DISKCOND_FUSE_WORKERS", "-3"},
                               {"DISKCOND_INODE_FD_BUDGET", "12x"},
                               {"DISKCOND_MAX_READ", "4k"},
                               {"DISKCOND_MAX_WRITE", "1m"}});
  EXPECT_TRUE(k == DaemonKnobs{});
}

}  // namespace
}  // namespace diskcond::mount
