#include "dmc/mount/daemon_knobs.h"

#include <cstdlib>
#include <string_view>

namespace diskcond::mount {
namespace {

bool is(const char* value, std::string_view expected) {
  return value != nullptr && std::string_view(value) == expected;
}

// A positive decimal count, or 0 (unset, empty, zero, negative or not a number).
unsigned long count(const char* value) {
  if (value == nullptr || *value == '\0' || *value == '-') return 0;
  char* end = nullptr;
  const unsigned long n = std::strtoul(value, &end, 10);
  return *end == '\0' ? n : 0;
}

}  // namespace

DaemonKnobs DaemonKnobs::from_environment(const Getenv& getenv) {
  DaemonKnobs k;
  k.idle_poll = !is(getenv("DISKCOND_IDLE_POLL"), "off");
  k.reply_cpu = !is(getenv("DISKCOND_REPLY_CPU"), "off");
  k.transit_lead = !is(getenv("DISKCOND_TRANSIT_LEAD"), "off");
  k.copy_lead = !is(getenv("DISKCOND_COPY_LEAD"), "off");
  k.killpriv_v2 = !is(getenv("DISKCOND_KILLPRIV_V2"), "off");
  k.kernel_arrival = !is(getenv("DISKCOND_KERNEL_ARRIVAL"), "off");
  k.send_order = !is(getenv("DISKCOND_SEND_ORDER"), "off");
  k.huge_receive = !is(getenv("DISKCOND_HUGE_RECEIVE"), "off");
  k.park_spares = !is(getenv("DISKCOND_PARK_SPARES"), "off");
  k.receive_cpu = !is(getenv("DISKCOND_RECEIVE_CPU"), "off");
  k.worker_spin = !is(getenv("DISKCOND_WORKER_SPIN"), "off");
  k.worker_cpus = !is(getenv("DISKCOND_WORKER_CPUS"), "off");
  k.splice_replies = !is(getenv("DISKCOND_SPLICE_REPLIES"), "off");
  k.fuse_uring = is(getenv("DISKCOND_FUSE_URING"), "1");
  k.clone_fd = is(getenv("DISKCOND_FUSE_CLONE_FD"), "1");
  k.fuse_splice = is(getenv("DISKCOND_FUSE_SPLICE"), "1");
  k.workers = static_cast<unsigned>(count(getenv("DISKCOND_FUSE_WORKERS")));
  k.inode_fd_budget = count(getenv("DISKCOND_INODE_FD_BUDGET"));
  if (is(getenv("DISKCOND_MAX_READ"), "off")) {
    k.max_read = 0;
  } else if (const unsigned long n = count(getenv("DISKCOND_MAX_READ")); n > 0) {
    k.max_read = static_cast<unsigned>(n);
  }
  if (is(getenv("DISKCOND_MAX_WRITE"), "off")) {
    k.max_write = 0;
  } else if (const unsigned long n = count(getenv("DISKCOND_MAX_WRITE")); n > 0) {
    k.max_write = static_cast<unsigned>(n);
  }
  return k;
}

WorkerLoopConfig DaemonKnobs::worker_loop(unsigned max_workers) const {
  return WorkerLoopConfig{.max_workers = max_workers,
                          .huge_buffers = huge_receive,
                          .park_spares = park_spares,
                          .receive_by_cpu = receive_cpu};
}

}  // namespace diskcond::mount
