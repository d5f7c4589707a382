#include "dmc/cli/text_format.h"

#include <fmt/format.h>

#include "core/profile_fields.h"
#include "core/units.h"

namespace diskcond::dmc {
namespace {

std::string cache_line(mount::CacheMode mode) {
  switch (mode) {
    case mount::CacheMode::kWriteBack:
      return "Cache: write-back (cache hits are not conditioned; writes are written back later)\n";
    case mount::CacheMode::kPageCache:
      return "Cache: page cache, write-through (cache hits are not conditioned)\n";
    case mount::CacheMode::kNoCache:
      break;
  }
  return "Cache: none (every read and write is conditioned)\n";
}

std::string floor_text(double ns) {
  return ns > 0 ? format_duration(ns) : "none yet";
}

// "1 command", "2 commands".
std::string count(uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string counter_lines(const mount::MountCounters& c) {
  std::string out = "Served since start:\n";
  out += fmt::format(" Reads: {}, {}\n", count(c.commands[0], "command", "commands"),
                     count(c.bytes[0], "byte", "bytes"));
  out += fmt::format(" Writes: {}, {}\n", count(c.commands[1], "command", "commands"),
                     count(c.bytes[1], "byte", "bytes"));
  out += fmt::format(" Flushes: {}\n", count(c.commands[2], "command", "commands"));
  out += fmt::format(" Mean added delay: {}\n", format_duration(c.mean_added_delay_ns));
  out += fmt::format(" Queue occupancy: {}\n", count(c.queue_occupancy, "command", "commands"));
  out += fmt::format(" Fastest 4 KiB read service: {}\n", floor_text(c.floor_read_ns));
  out += fmt::format(" Fastest 4 KiB write service: {}\n", floor_text(c.floor_write_ns));
  out += fmt::format(
      " Placement: {} from the backing file's extents (FIEMAP), {} linear (O_DIRECT), {}{}\n",
      count(c.files_mapped, "file", "files"), count(c.files_linear, "file", "files"),
      count(c.files_hashed, "file", "files"),
      c.files_hashed > 0 ? " hashed (the backing file system has no FIEMAP)" : " hashed");
  out += fmt::format(" Metadata reads: {}, {}\n",
                     count(c.metadata_reads, "inode-table read", "inode-table reads"),
                     count(c.directory_reads, "directory read", "directory reads"));
  out += fmt::format(" Written pages read back from the page cache: {}\n",
                     count(c.written_page_reads, "page", "pages"));
  out += fmt::format(" Fault rules: {} live, {} injected (dmc fault list)\n", c.fault_rules,
                     count(c.faults_injected, "fault", "faults"));
  if (c.stall_active != 0 || c.stalled_ns != 0) {
    out += fmt::format(" Stalls: {}, {:.3f} s stalled since start\n",
                       c.stall_active != 0 ? "STALLED now" : "none now",
                       static_cast<double>(c.stalled_ns) / 1e9);
  }
  return out;
}

}  // namespace

std::string format_access_time(int64_t ns) {
  if (ns % kNsPerUs == 0) return fmt::format("{} us", ns / kNsPerUs);
  return fmt::format("{} us", static_cast<double>(ns) / kNsPerUs);
}

std::string format_duration(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string format_profile_list(std::span<const Profile> profiles) {
  std::string out;
  for (size_t i = 0; i < profiles.size(); ++i)
    out += fmt::format("{:>3}: {}\n", i, profiles[i].name);
  return out;
}

std::string profile_field_lines(const Profile& p) {
  std::string out = fmt::format(" Type: {}\n", to_string(p.type));
  for (const ProfileField& field : profile_fields()) {
    if (field.label.empty()) continue;
    std::string value = visit_field(field, p, [&](auto v) {
      switch (field.kind) {
        case FieldKind::kTime:
          return format_access_time(static_cast<int64_t>(v));
        case FieldKind::kRate:
          return format_rate_mb(static_cast<uint64_t>(v));
        case FieldKind::kBytes:
        case FieldKind::kCount:
        case FieldKind::kRatio:
          break;  // no field with a label of its own is a ratio
      }
      return fmt::format("{}", v);
    });
    out += fmt::format(" {}: {}\n", field.label, value);
  }
  if (p.spinup_ns > 0 && p.spinup_idle_ns > 0) {
    out += fmt::format(" Spin-up: {} after {} idle\n",
                       format_duration(static_cast<double>(p.spinup_ns)),
                       format_duration(static_cast<double>(p.spinup_idle_ns)));
  }
  if (p.capacity_bytes > 0) out += fmt::format(" Capacity: {}\n", format_size(p.capacity_bytes));
  if (!p.latency_table.empty()) {
    out += fmt::format(" Latency table: {} (quantile:multiplier, mean kept; seed {})\n",
                       p.latency_table, p.latency_seed);
  }
  if (p.latency_tail_milli > 1000) {
    out += fmt::format(" Latency tail: p99 {:g}x the median, mean kept (seed {})\n",
                       p.latency_tail_milli / 1000.0, p.latency_seed);
  }
  return out;
}

std::string format_profile(const Profile& profile) {
  return fmt::format("Profile: {}\n", profile.name) + profile_field_lines(profile);
}

std::string format_processes(const std::vector<mount::ProcessInside>& processes, size_t max) {
  std::string out;
  for (size_t i = 0; i < processes.size() && i < max; ++i) {
    const mount::ProcessInside& p = processes[i];
    std::string uses;
    for (size_t u = 0; u < p.uses.size() && u < 3; ++u) uses += (u > 0 ? ", " : "") + p.uses[u];
    if (p.uses.size() > 3) uses += ", ...";
    out += fmt::format("{}pid {} ({}: {})", i > 0 ? ", " : "", p.pid, p.command, uses);
  }
  if (processes.size() > max) out += fmt::format(" and {} more", processes.size() - max);
  return out;
}

std::string format_status(const StatusView& view) {
  const std::string inside =
      !view.path.empty() && view.path != view.mount
          ? fmt::format("{} is inside the conditioned directory {}\n", view.path, view.mount)
          : "";
  if (view.state == ConditionerState::kStale) {
    return fmt::format(
        "Disk Mount Conditioner: STALE\n"
        "{}"
        "The daemon serving {} is not running{}; I/O on it fails.\n"
        "Fix: run 'sudo dmc stop {}' to clear the stale mount, then 'sudo dmc start {}' to "
        "condition it again.\n",
        inside, view.mount,
        view.daemon_pid > 0 ? fmt::format(" (pid {} is gone)", view.daemon_pid) : "", view.mount,
        view.mount);
  }
  bool on = view.state == ConditionerState::kOn;
  std::string out = fmt::format("Disk Mount Conditioner: {}\n", on ? "ON" : "OFF");
  out += format_profile(view.settings ? view.settings->profile : zero_profile());
  out += fmt::format("Mount: {}\n", view.mount);
  out += inside;
  if (on) {
    out += fmt::format("Daemon: pid {}\n", view.daemon_pid);
    if (!view.unconditioned_processes.empty()) {
      out += fmt::format(
          "Warning: {} still in the directory underneath (there before 'dmc start'), "
          "not conditioned: {}\n",
          count(view.unconditioned_processes.size(), "process", "processes"),
          format_processes(view.unconditioned_processes));
    }
  } else if (view.settings) {
    out += fmt::format("Stored settings: applied by 'dmc start {}'\n", view.mount);
  }
  if (view.settings) out += cache_line(view.settings->cache);
  if (on && view.settings) {
    out += view.settings->crashable
               ? fmt::format("Crashable: yes, an undo log keeps what 'dmc crash {}' takes back\n",
                             view.mount)
               : "Crashable: no (started without -crashable)\n";
  }
  if (view.settings) {
    if (!view.boot) {
      out += "Boot: not kept across reboots\n";
    } else if (view.boot_problem.empty()) {
      out += "Boot: re-applied at boot by dmc-boot.service\n";
    } else {
      out += fmt::format("Boot: '-boot' is stored, but nothing will re-apply it at boot: {}\n",
                         view.boot_problem);
    }
  }
  if (view.counters) out += counter_lines(*view.counters);
  return out;
}

}  // namespace diskcond::dmc
