#include "dmc/mount/status_snapshot.h"

#include <unistd.h>

namespace diskcond::mount {

StatusReply status_snapshot(const std::string& mount_point, Filesystem& fs,
                            Conditioner& conditioner, ReplyScheduler& scheduler, bool crashable) {
  StatusReply s;
  s.pid = getpid();
  s.uid = geteuid();
  s.mount_point = mount_point;
  s.settings.profile = conditioner.profile();
  s.settings.cache = fs.cache.load();
  s.settings.crashable = crashable;
  s.counters = conditioner.counters();
  const LayoutCounters placed = fs.layout.counters();
  s.counters.files_mapped = placed.files_mapped;
  s.counters.files_hashed = placed.files_hashed;
  s.counters.files_linear = placed.files_linear;
  s.counters.metadata_reads = placed.metadata_reads;
  s.counters.directory_reads = placed.directory_reads;
  s.counters.written_page_reads = fs.written_page_reads.load(std::memory_order_relaxed);
  s.counters.fault_rules = fs.faults.size();
  s.counters.faults_injected = fs.faults.injected();
  s.counters.stall_active = fs.faults.stalled(conditioner.wall_now()) ? 1 : 0;
  s.counters.stalled_ns = static_cast<uint64_t>(fs.faults.stalled_ns(conditioner.wall_now()));
  const BackingBound bound = conditioner.backing_bound();
  s.diagnostics.backing_bound_replies = bound.replies;
  s.diagnostics.backing_bound_mean_excess_ns = bound.mean_excess_ns;
  s.diagnostics.backing_bound_excess_total_ns = bound.total_excess_ns;
  s.diagnostics.wake_ahead_ns = scheduler.wake_ahead_ns();
  s.diagnostics.max_lateness_ns = scheduler.max_lateness_ns();
  s.diagnostics.spun_replies = scheduler.spun_replies();
  s.diagnostics.transit_lead_read_ns = conditioner.transit_lead_ns();
  s.diagnostics.transit_lead_write_ns = conditioner.transit_lead_ns();
  s.diagnostics.copy_lead_read_1mib_ns =
      conditioner.data_lead_ns(1 << 20, 0) - conditioner.transit_lead_ns();
  s.diagnostics.copy_lead_write_1mib_ns =
      conditioner.data_lead_ns(0, 1 << 20) - conditioner.transit_lead_ns();
  const LatenessSummary late = scheduler.lateness();
  s.diagnostics.lateness_replies = late.replies;
  s.diagnostics.lateness_early_replies = late.early;
  s.diagnostics.lateness_p50_ns = late.p50_ns;
  s.diagnostics.lateness_p90_ns = late.p90_ns;
  s.diagnostics.lateness_p99_ns = late.p99_ns;
  s.diagnostics.lateness_p999_ns = late.p999_ns;
  s.diagnostics.lateness_max_ns = late.max_ns;
  s.diagnostics.lateness_total_ns = late.total_ns;
  s.diagnostics.model_latency_total_ns = conditioner.model_latency_total_ns();
  s.diagnostics.model_overtaken_commands = conditioner.model_overtaken_commands();
  s.diagnostics.kernel_arrivals = fs.arrivals.stamped.load(std::memory_order_relaxed);
  s.diagnostics.kernel_arrival_misses = fs.arrivals.missed.load(std::memory_order_relaxed);
  s.diagnostics.handover_total_ns = fs.arrivals.handover_total_ns.load(std::memory_order_relaxed);
  s.diagnostics.read_request_max_bytes = fs.read_request_max_bytes.load(std::memory_order_relaxed);
  s.diagnostics.write_request_max_bytes =
      fs.write_request_max_bytes.load(std::memory_order_relaxed);
  s.diagnostics.spliced_read_replies = fs.spliced_read_replies.load(std::memory_order_relaxed);
  if (fs.worker_cpus != nullptr && fs.worker_cpus->enabled()) {
    s.diagnostics.worker_cpu_mask = fs.worker_cpus->mask();
    s.diagnostics.worker_cpu_changes = fs.worker_cpus->changes();
  }
  if (fs.send_order != nullptr) {
    s.diagnostics.send_order_waits = fs.send_order->waits();
    s.diagnostics.send_order_timeouts = fs.send_order->timeouts();
    s.diagnostics.send_order_waited_ns = fs.send_order->waited_ns();
  }
  if (const IdlePoll* poll = conditioner.idle_poll(); poll != nullptr) {
    const IdlePollState idle = poll->state();
    s.diagnostics.idle_poll_state = !idle.enabled ? 0 : idle.held ? 2 : 1;
    s.diagnostics.idle_poll_errno = static_cast<uint64_t>(idle.error);
    s.diagnostics.idle_poll_holds = idle.holds;
    s.diagnostics.idle_poll_held_ns = idle.held_ns;
  }
  return s;
}

}  // namespace diskcond::mount
