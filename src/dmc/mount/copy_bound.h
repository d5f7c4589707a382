// A lower bound of how much longer a FUSE message carrying data takes to cross the kernel than
// one without, by size, from the daemon's own measurements. Two are kept (Conditioner):
//
// Replies (a read's data). The reply copies its data into the caller's pages inside the daemon's
// writev() of /dev/fuse (an O_DIRECT read: straight into the caller's buffer, and the pages are
// released in the same call); only then does the kernel wake the caller. So a reply of `s` bytes
// that starts at `t` cannot wake its caller before t plus that writev's work, and the reply may
// leave that much before the model's completion. Measured: the wall time of the reply's writev()
// (session_io.cc), which never waits for anything, so it is the work plus whatever interrupted it.
// Requests (a write's data). The kernel copies a write's data into the daemon inside the worker's
// read() of /dev/fuse, before the handler stamps the request's arrival, while the caller waits.
// Measured: the thread CPU time of that read() (CLOCK_THREAD_CPUTIME_ID), because its wall time
// also holds the wait for a request.
// A writev's wall time cannot read less than its work; the thread CPU clock can: on the project's
// VM (a PVM guest, 2026-12-04) one 1 MiB reply's writev read 17 us of CPU time in 227 us of wall
// time, and 2 of 2,344 read under 25 us where no such copy took less than 95 us of wall time. An
// under-reading only makes the lead smaller (the reply later), but one in a thousand was enough to
// set a slot's minimum: as CPU time the 1 MiB reply lead ranged 9-93 us from one mount to the next,
// as wall time 57-97 us. Every reply carrying more than kSlotBytes is measured, and one other call
// in kSampleEvery per thread (data-less ones more rarely once slot 0 is ready: session_io.cc).
// TransitBound's probe covers the rest of the round trip with a message that carries no data: this
// bound is what data adds to it.
//
// The amount must never exceed what the message it is applied to takes, so it is a running
// minimum of measurements, never an average, and a slot only counts once kMinSamples are in (one
// early sample may be slow, and a lead taken from it alone would make replies early):
//   - every measurement is recorded by its payload size (reply: the bytes after the FUSE header;
//     request: the bytes after a write's headers) in slots of kSlotBytes: slot j holds payloads in
//     (j * kSlotBytes, (j + 1) * kSlotBytes], slot 0 also the empty ones; each keeps the smallest
//     duration it has seen;
//   - a message of `s` bytes uses only slots all of whose sizes are <= s (a smaller copy is no
//     slower), and of those the largest minimum: B(s) = max over ready j with (j + 1) *
//     kSlotBytes <= s of min_j;
//   - what a message without data costs is already in the probe's round trip, so what data adds
//     is B(s) less slot 0's minimum (messages of at most kSlotBytes, the probe's own among them);
//   - a running minimum approaches the fastest copy from above, so a later copy can still be
//     faster than it: each slot's part of the lead is only a share of what it adds, which grows
//     as the slot's measurements accumulate (kShares: 3/4 from kMinSamples, 7/8 from 256, all of
//     it from 1024), lead_ns(s) = max over ready j with (j + 1) * kSlotBytes <= s of
//     share_j * max(min_j - min_0, 0); 0 for s < kSlotBytes, 0 until slot 0 is ready. Measured (1
//     MiB O_DIRECT reads, Slow SSD, AMD EPYC 2-core VM, 2026-12-03, load 0.1-0.3): the reply
//     writev's CPU time ranged 130-514 us (median 216-261); a copy after a slot's first 16 was as
//     little as 0.82x of the minimum so far, and with the whole minimum as the lead one 1 MiB reply
//     in a few hundred reached its caller 13 us early (MountNeverFaster in a fresh-clone CI run and
//     1 of 8 repeats here). Later (2026-12-05, Zen 5 PVM guest, load 0.2-0.4; each 1 MiB reply's
//     writev timed by bpftrace, fio 1 MiB QD1 reads on a fresh mount): Slow SSD, 1,903 replies: the
//     minimum after 16 was 126 us and the fastest later one 0.63x of it; after 256, 86 us and 0.93x
//     (17 later ones below it); after 1024, 80 us and none below. PCIe 2 SSD, 10,088 replies: after
//     64, 0.83x; after 256, 0.93x (230 below); after 1024, 0.98x (one below). A reply that much
//     faster than the lead is still no earlier than the tolerance: its caller's own wake-up (at
//     least 5 us in a kernel trace, 2026-12-05) comes after it.
// Payloads above kMaxBytes are not recorded and use the bound of kMaxBytes. The minima only fall
// (at once when the machine gets faster), so load never makes a reply earlier.
//
// Thread-safe and lock-free on the hot path: record() is a few relaxed atomics (plus a mutex when
// a minimum falls or a slot's share grows, rare once warm); lead_ns() is one relaxed load.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace diskcond::mount {

class CopyBound {
 public:
  static constexpr uint64_t kSlotBytes = 4096;
  static constexpr uint64_t kMaxBytes = 1 << 20;  // FUSE's largest read or write here (256 pages)
  static constexpr int kSlots = static_cast<int>(kMaxBytes / kSlotBytes);
  static constexpr uint64_t kMinSamples = 16;
  // The session times one read() or writev() of /dev/fuse in this many per thread (a read's
  // thread CPU clock is a system call, not a vDSO read: about a microsecond per timed call).
  static constexpr unsigned kSampleEvery = 4;
  // A write request's headers before its data (fuse_in_header + fuse_write_in).
  static constexpr uint64_t kWriteHeaderBytes = 80;
  // The share of a slot's bound that is used as lead, by how many measurements the slot has
  // (see the header comment): from `samples` on, num / den of it.
  struct Share {
    uint64_t samples;
    int64_t num;
    int64_t den;
  };
  static constexpr std::array<Share, 3> kShares{{{kMinSamples, 3, 4}, {256, 7, 8}, {1024, 1, 1}}};

  // One message carrying `payload` data bytes took `ns` (see the header comment). Values <= 0
  // and payloads above kMaxBytes are ignored.
  void record(uint64_t payload, int64_t ns);
  // How much earlier than its model time the reply to a message carrying `payload` data bytes
  // may leave, in ns, on top of the transit lead (see the header comment); 0 until enough
  // messages are in.
  int64_t lead_ns(uint64_t payload) const;
  // Slot `slot`'s smallest duration (0 = none yet) and how many it recorded.
  int64_t slot_min_ns(int slot) const { return min_[slot].load(std::memory_order_relaxed); }
  uint64_t slot_samples(int slot) const { return samples_[slot].load(std::memory_order_relaxed); }

 private:
  static int slot_of(uint64_t payload);
  // Recomputes lead_ from the slots.
  void publish();

  std::array<std::atomic<int64_t>, kSlots> min_{};       // 0 = none yet
  std::array<std::atomic<uint64_t>, kSlots> samples_{};  // measurements per slot
  std::array<std::atomic<int64_t>, kSlots> lead_{};      // lead_ns((j + 1) * kSlotBytes)
  std::mutex publish_mu_;                                // serialises publish()
};

}  // namespace diskcond::mount
