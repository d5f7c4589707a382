// The kernel's send time of each FUSE request of one connection (send_stamps.h).
//
// Runs at the tracepoint fuse_request_send, in the context of the task whose system call made the
// request, just after the kernel numbered it (`unique`) and before it is queued for the daemon. It
// writes CLOCK_MONOTONIC (bpf_ktime_get_ns), the request's opcode and the CPU the caller sends it
// from (where it then sleeps, caller_cpu.h), then its `unique`, into slot
// (unique >> 1) % kSlots of an mmap-able array; the daemon reads the slot after reading the
// request from /dev/fuse and trusts the time only if the slot still names that request.
//
// The kernel's structures are declared here with only the fields read, and relocated by name
// against the running kernel's BTF (CO-RE), so their layout may change from kernel to kernel.
// Built by clang -target bpf (CMakeLists.txt) and embedded in the daemon.
#include <linux/bpf.h>
#include <linux/types.h>

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct fuse_in_header {
  __u32 opcode;
  __u64 unique;
} __attribute__((preserve_access_index));
struct fuse_conn {
  __u32 dev;
} __attribute__((preserve_access_index));
struct fuse_mount {
  struct fuse_conn* fc;
} __attribute__((preserve_access_index));
struct fuse_req {
  struct {
    struct fuse_in_header h;
  } in;
  struct fuse_mount* fm;
} __attribute__((preserve_access_index));

// Must match send_stamps.h (SendStampSlot, SendStampTable::kSlots).
struct send_stamp {
  __u64 unique;   // the request whose time sent_ns is; 0: none yet
  __u64 sent_ns;  // bpf_ktime_get_ns() at the send
  __u32 opcode;   // the request's (FUSE_READ ...)
  __u32 cpu;      // the CPU the sending task runs on
};
#define SLOTS 4096

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __uint(max_entries, SLOTS);
  __type(key, __u32);
  __type(value, struct send_stamp);
} stamps SEC(".maps");

// The connection to stamp (the kernel's dev_t of the mount, MKDEV(major, minor)); set before load.
const volatile __u32 connection = 0;

SEC("tp_btf/fuse_request_send")
int BPF_PROG(stamp_send, const struct fuse_req* req) {
  if (BPF_CORE_READ(req, fm, fc, dev) != connection) return 0;
  const __u64 unique = BPF_CORE_READ(req, in.h.unique);
  const __u32 slot = (__u32)(unique >> 1) & (SLOTS - 1);
  struct send_stamp* stamp = bpf_map_lookup_elem(&stamps, &slot);
  if (!stamp) return 0;
  stamp->sent_ns = bpf_ktime_get_ns();
  stamp->opcode = BPF_CORE_READ(req, in.h.opcode);
  stamp->cpu = bpf_get_smp_processor_id();
  // The time, opcode and CPU before the name: a reader that finds the name finds them
  // (x86 keeps stores in order; the compiler is told not to swap them).
  asm volatile("" ::: "memory");
  stamp->unique = unique;
  return 0;
}

// The kernel lets only GPL-compatible programs read kernel memory (bpf_probe_read_kernel).
char LICENSE[] SEC("license") = "GPL";
