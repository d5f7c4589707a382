#!/usr/bin/env python3
"""Where a queue-depth-1 FUSE read or write spends its time, from a kernel trace.

Usage:
  perf record -o T.data -a -e syscalls:sys_enter_pread64,syscalls:sys_exit_pread64,\
syscalls:sys_enter_pwrite64,syscalls:sys_exit_pwrite64,syscalls:sys_enter_read,\
syscalls:sys_exit_read,syscalls:sys_enter_writev,syscalls:sys_exit_writev,\
fuse:fuse_request_send,fuse:fuse_request_end,sched:sched_switch -- <fio ... --iodepth=1>
  perf script -i T.data --ns -F comm,tid,time,event,trace > T.txt
  bench/fuse_breakdown.py T.txt --daemon-tids $(ls /proc/PID/task | paste -sd,) --comm fio [--bytes 1048576]

For each FUSE_READ/FUSE_WRITE of the caller (`--comm`) it splits the caller's system call into:
  front    syscall entry -> the daemon's read() of /dev/fuse returns the request (the kernel's
           hand-over: pinning pages, queueing, waking a worker, and for a write copying its data)
  oncpu    ... of which: syscall entry -> the worker that takes it is switched in
  inread   ... of which: that worker switched in -> its read() returns (for a write, the copy
           of the data into the daemon)
  held     that read() returning -> the reply's writev() starts (the handler, the disk model's
           time less the lead, the reply thread's lateness)
  copy     writev() entry -> the kernel ends the request (fuse_request_end: the reply's copy into
           the caller's pages, a read's data)
  wake     request end -> the caller's syscall returns (waking the caller, unpinning, return)
  wakecpu  ... of which: request end -> the caller is switched in
  writev   the reply's whole writev() (entry to exit), as the daemon sees it
and prints min / p50 / mean of each in microseconds. Kernel timestamps (perf's clock), so the
numbers are free of the caller's and daemon's own clock reads; tracing adds about a microsecond
per event.
"""
import argparse
import re
import statistics
import sys

LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+(?P<time>\d+\.\d+):\s+(?P<event>[\w:]+):\s*(?P<rest>.*)$")
SEND = re.compile(r"req (\d+) opcode (\d+) \(\w+\) len (\d+)")
END = re.compile(r"req (\d+) len (\d+) error (-?\d+)")
RET = re.compile(r"0x([0-9a-f]+)$")
COUNT = re.compile(r"count: 0x([0-9a-f]+)")
VLEN = re.compile(r"vlen: 0x([0-9a-f]+)")


def parse(path):
    events = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            t = float(m.group("time")) * 1e6  # us
            events.append((t, m.group("comm"), int(m.group("tid")), m.group("event"), m.group("rest")))
    events.sort(key=lambda e: e[0])
    return events


def summary(name, values):
    if not values:
        return f"  {name:<7} (none)"
    return (f"  {name:<7} min {min(values):8.1f}  p50 {statistics.median(values):8.1f}  "
            f"mean {statistics.fmean(values):8.1f} us")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", help="perf script output (see the module docstring)")
    ap.add_argument("--comm", default="fio", help="the caller's command name (default fio)")
    ap.add_argument("--bytes", type=int, default=0, help="only requests of this many data bytes")
    ap.add_argument("--skip", type=int, default=5, help="requests left out at the start (warm-up)")
    ap.add_argument("--daemon-tids", required=True,
                    help="the daemon's thread ids, comma-separated (ls /proc/PID/task)")
    args = ap.parse_args()

    events = parse(args.trace)
    daemon = {int(t) for t in args.daemon_tids.split(",") if t}
    switched_in = {}  # tid -> time it last got a CPU
    SWITCH = re.compile(r"next_pid=(\d+)")
    caller_enter = {}  # tid -> time of the last pread64/pwrite64 entry
    reqs = {}  # unique -> dict
    read_enter = {}  # daemon tid -> time of sys_enter_read
    writev_enter = {}  # daemon tid -> time of sys_enter_writev
    pending_by_len = []  # requests sent, not yet read by the daemon: [unique, len]
    done = []
    for t, comm, tid, ev, rest in events:
        if ev == "sched:sched_switch":
            m = SWITCH.search(rest)
            if m:
                n = int(m.group(1))
                switched_in[n] = t
                for r in reqs.values():
                    if r["tid"] == n and "end" in r and "oncpu_back" not in r:
                        r["oncpu_back"] = t
            continue
        if comm.startswith(args.comm):
            if ev in ("syscalls:sys_enter_pread64", "syscalls:sys_enter_pwrite64"):
                caller_enter[tid] = t
                continue
            if ev == "fuse:fuse_request_send":
                m = SEND.search(rest)
                if m and int(m.group(2)) in (15, 16) and tid in caller_enter:
                    u = int(m.group(1))
                    reqs[u] = {"tid": tid, "enter": caller_enter[tid], "send": t,
                               "op": int(m.group(2)), "len": int(m.group(3))}
                    pending_by_len.append(u)
                continue
            if ev in ("syscalls:sys_exit_pread64", "syscalls:sys_exit_pwrite64"):
                for u, r in list(reqs.items()):
                    if r["tid"] == tid and "end" in r and "exit" not in r:
                        r["exit"] = t
                        done.append(r)
                        del reqs[u]
                continue
        if tid not in daemon:  # another process, or another mount's daemon
            continue
        if ev == "syscalls:sys_enter_read":
            read_enter[tid] = t
        elif ev == "syscalls:sys_exit_read":
            m = RET.search(rest)
            n = int(m.group(1), 16) if m else -1
            for i, u in enumerate(pending_by_len):
                r = reqs.get(u)
                if r is not None and r["len"] == n and "got" not in r:
                    r["got"] = t
                    r["worker_in"] = max(switched_in.get(tid, t), read_enter.get(tid, t))
                    del pending_by_len[i]
                    break
        elif ev == "syscalls:sys_enter_writev":
            writev_enter[tid] = t
        elif ev == "syscalls:sys_exit_writev":
            if tid in writev_enter:
                for r in reqs.values():
                    if r.get("end_tid") == tid and "wv_exit" not in r:
                        r["wv_exit"] = t
        elif ev == "fuse:fuse_request_end":
            m = END.search(rest)
            if m and int(m.group(1)) in reqs:
                r = reqs[int(m.group(1))]
                r["end"] = t
                r["end_tid"] = tid
                r["wv_enter"] = writev_enter.get(tid, t)

    done = [r for r in done if "got" in r and "wv_enter" in r]
    data = lambda r: r["len"] - 80 if r["op"] == 16 else 0
    if args.bytes:
        done = [r for r in done if r["op"] == 15 or data(r) == args.bytes]
    done = done[args.skip:]
    print(f"{len(done)} requests ({args.comm})")
    parts = {
        "total": [r["exit"] - r["enter"] for r in done],
        "front": [r["got"] - r["enter"] for r in done],
        "oncpu": [r["worker_in"] - r["enter"] for r in done],
        "inread": [r["got"] - r["worker_in"] for r in done],
        "held": [r["wv_enter"] - r["got"] for r in done],
        "copy": [r["end"] - r["wv_enter"] for r in done],
        "wake": [r["exit"] - r["end"] for r in done],
        "wakecpu": [r["oncpu_back"] - r["end"] for r in done if "oncpu_back" in r],
        "writev": [r["wv_exit"] - r["wv_enter"] for r in done if "wv_exit" in r],
    }
    for name, values in parts.items():
        print(summary(name, values))
    return 0


if __name__ == "__main__":
    sys.exit(main())
