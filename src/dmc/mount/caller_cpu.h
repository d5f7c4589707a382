// Which CPU a request's caller sleeps on, so that its reply can be sent from that CPU.
//
// A caller at queue depth 1 sleeps while the model holds its request. When the reply is sent from
// another CPU, the kernel wakes the caller's CPU with an interrupt; on a VM whose idle vCPUs halt,
// that costs tens of microseconds once the vCPU has slept more than the host's halt polling
// (measured on the 2-core VM: 50-60 us after a 4 ms wait, 12 us after 120 us). Sent from the
// caller's own CPU, the reply thread's timer takes that wake-up (and its wake-ahead learns and
// hides it), and the caller then runs on a CPU already awake, as a block device's completion
// runs on the submitting CPU (blk-mq's rq_affinity). Where the caller runs: the CPU it sent the
// request from, where the kernel's send stamps give it (send_stamps.h; the caller goes to sleep
// there right after the send), else the kernel's `processor` field of /proc/<tid>/stat: the CPU
// it last ran on, which a sleeping thread keeps, read again at most every CallerCpus::kRefreshNs.
//
// session_io.cc notes each request's caller (the thread id in its FUSE header) and its CPU at the
// send for the worker thread that reads it; the handler's Conditioner::finish takes that CPU, or
// asks CallerCpus for the thread's. Thread ids are the mount's pid namespace's, the daemon's.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace diskcond::mount {

// The caller (thread id) of the FUSE request this thread is serving, and the CPU it sent it from
// (-1: not known): set as a worker reads a request from /dev/fuse; 0 and -1 on a thread that
// never read one.
void set_request_caller(pid_t tid, int sent_from_cpu = -1);
pid_t request_caller();
int request_caller_cpu();

// Field 39 (`processor`) of a /proc/<tid>/stat line, or -1 if the line is malformed. The second
// field (the command name, in parentheses) may hold spaces and parentheses: fields are counted
// after its last ')'.
int parse_stat_cpu(std::string_view stat);
// The CPU thread `tid` last ran on (/proc/<tid>/stat), or -1 (gone, unreadable).
int read_thread_cpu(pid_t tid);

// A cache of callers' CPUs: each thread's CPU is read again once its entry is kRefreshNs old, so a
// caller that moves is followed within that time (until then its replies come from its old CPU,
// which only costs the cross-CPU wake-up it would pay anyway); one read per caller per kRefreshNs.
// Thread-safe (one mutex, held only for the map; reads of /proc happen outside it).
class CallerCpus {
 public:
  using Reader = std::function<int(pid_t)>;  // the CPU `tid` last ran on, or -1
  static constexpr int64_t kRefreshNs = 10'000'000;
  static constexpr size_t kMaxCallers = 1024;  // beyond it the cache starts again empty

  explicit CallerCpus(Reader reader = read_thread_cpu) : reader_(std::move(reader)) {}

  // The CPU caller `tid` is on at `now_ns` (any monotonic clock), or -1 if unknown (tid 0).
  int cpu_of(pid_t tid, int64_t now_ns);
  uint64_t reads() const;  // /proc reads so far, for tests and status

 private:
  struct Entry {
    int cpu;
    int64_t read_ns;
  };
  Reader reader_;
  mutable std::mutex mu_;
  std::unordered_map<pid_t, Entry> cpus_;  // guarded by mu_
  uint64_t reads_ = 0;                     // guarded by mu_
};

}  // namespace diskcond::mount
