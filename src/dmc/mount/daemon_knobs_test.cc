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
  EXPECT_TRUE(k.idle_poll);
  EXPECT_TRUE(k.reply_cpu);
  EXPECT_TRUE(k.transit_lead);
  EXPECT_TRUE(k.copy_lead);
  EXPECT_TRUE(k.killpriv_v2);
  EXPECT_TRUE(k.kernel_arrival);
  EXPECT_TRUE(k.model_order);
  EXPECT_FALSE(k.fuse_uring);
  EXPECT_FALSE(k.clone_fd);
  EXPECT_FALSE(k.fuse_splice);
  EXPECT_EQ(k.workers, 0u);
  EXPECT_EQ(k.inode_fd_budget, 0u);
  EXPECT_EQ(k.max_read, 0u);
}

TEST(MountDaemonKnobs, OffTurnsAKnobOffAndOneTurnsAnOptInOn) {
  const DaemonKnobs k = knobs({{"DISKCOND_IDLE_POLL", "off"},
                               {"DISKCOND_REPLY_CPU", "off"},
                               {"DISKCOND_TRANSIT_LEAD", "off"},
                               {"DISKCOND_COPY_LEAD", "off"},
                               {"DISKCOND_KILLPRIV_V2", "off"},
                               {"DISKCOND_KERNEL_ARRIVAL", "off"},
                               {"DISKCOND_MODEL_ORDER", "off"},
                               {"DISKCOND_FUSE_URING", "1"},
                               {"DISKCOND_FUSE_CLONE_FD", "1"},
                               {"DISKCOND_FUSE_SPLICE", "1"},
                               {"DISKCOND_FUSE_WORKERS", "4"},
                               {"DISKCOND_INODE_FD_BUDGET", "32"},
                               {"DISKCOND_MAX_READ", "262144"}});
  EXPECT_FALSE(k.idle_poll);
  EXPECT_FALSE(k.reply_cpu);
  EXPECT_FALSE(k.transit_lead);
  EXPECT_FALSE(k.copy_lead);
  EXPECT_FALSE(k.killpriv_v2);
  EXPECT_FALSE(k.kernel_arrival);
  EXPECT_FALSE(k.model_order);
  EXPECT_TRUE(k.fuse_uring);
  EXPECT_TRUE(k.clone_fd);
  EXPECT_TRUE(k.fuse_splice);
  EXPECT_EQ(k.workers, 4u);
  EXPECT_EQ(k.inode_fd_budget, 32u);
  EXPECT_EQ(k.max_read, 262144u);
}

// Anything but the exact word keeps the default: a typo never turns a part off.
TEST(MountDaemonKnobs, OtherValuesKeepTheDefaults) {
  const DaemonKnobs k = knobs({{"DISKCOND_TRANSIT_LEAD", "OFF"},
                               {"DISKCOND_COPY_LEAD", "0"},
                               {"DISKCOND_KERNEL_ARRIVAL", ""},
                               {"DISKCOND_FUSE_URING", "yes"},
                               {"DISKCOND_FUSE_WORKERS", "-3"},
                               {"DISKCOND_INODE_FD_BUDGET", "12x"}});
  EXPECT_TRUE(k.transit_lead);
  EXPECT_TRUE(k.copy_lead);
  EXPECT_TRUE(k.kernel_arrival);
  EXPECT_FALSE(k.fuse_uring);
  EXPECT_EQ(k.workers, 0u);
  EXPECT_EQ(k.inode_fd_budget, 0u);
}

}  // namespace
}  // namespace diskcond::mount
