#include "dmc/mount/session_io.h"

#include <fcntl.h>
#include <linux/fuse.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "dmc/mount/caller_cpu.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/fuse_uring.h"
#include "dmc/mount/request_arrival.h"
#include "dmc/mount/send_order.h"
#include "posix/thread_name.h"

namespace diskcond::mount {
namespace {

Filesystem& of(void* userdata) {
  return *static_cast<Filesystem*>(userdata);
}

int64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
int64_t thread_cpu_ns() {
  return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

// Once slot 0 of a bound (messages without data: every metadata request and reply) has its
// kMinSamples, it is timed one call in this many per thread rather than kSampleEvery: its minimum
// is only subtracted from the data slots' (copy_bound.h), so a slower fall of it makes no reply
// earlier, and a read's thread CPU clock is a system call (about one per metadata request
// otherwise, a fifth of the daemon's system calls in metadata_rate when replies used it too;
// docs/benchmarks.md section 2).
constexpr unsigned kSampleEveryWarmSlot0 = 64;

// Whether to time this call of a thread whose `counter` it is, for `bound`; `small`: the message
// carries at most CopyBound::kSlotBytes of data (slot 0).
bool sample(unsigned& counter, const CopyBound& bound, bool small) {
  const unsigned every = small && bound.slot_samples(0) >= CopyBound::kMinSamples
                             ? kSampleEveryWarmSlot0
                             : CopyBound::kSampleEvery;
  return ++counter % every == 0;
}

// Notes the arrival of the request a worker has just read (request_arrival.h): the read, and the
// kernel's send when it was stamped (send_stamps.h), both on the conditioner's clock. A forget or
// an interrupt is never stamped (they do not pass the tracepoint) and is not looked up. Returns the
// CPU the caller sent it from and the time from that send to the read ({-1, 0}: not stamped).
struct SentFrom {
  int cpu = -1;
  int64_t handover_ns = 0;
};
SentFrom note_arrival(Filesystem& fs, const fuse_in_header& header) {
  const bool stampable = fs.send_stamps != nullptr && header.opcode != FUSE_FORGET &&
                         header.opcode != FUSE_BATCH_FORGET && header.opcode != FUSE_INTERRUPT;
  if (!stampable) {
    note_request_read(fs.conditioner.now(), 0, header.unique);
    return {};
  }
  const SentRequest request = fs.send_stamps->sent(header.unique);
  const int64_t sent = request.sent_ns;
  // The wall clock before the device clock: the send, at or before the one, is at or before the
  // other.
  const int64_t wall = clock_ns(CLOCK_MONOTONIC);
  const int64_t now = fs.conditioner.now();
  if (sent <= 0 || sent > wall) {
    fs.arrivals.missed.fetch_add(1, std::memory_order_relaxed);
    note_request_read(now, 0, header.unique);
    return {};
  }
  const int64_t handover = wall - sent;
  fs.arrivals.stamped.fetch_add(1, std::memory_order_relaxed);
  fs.arrivals.handover_total_ns.fetch_add(handover, std::memory_order_relaxed);
  // The send converted to the device clock as it is, not as `now` less the hand-over: a worker
  // preempted between its two readings above moved the send that much later (95 us seen), so a
  // large read's first piece could arrive after its second (MountSendOrder: overtaken commands
  // with no wait running out, 1 run in about 40 with both CPUs busy).
  note_request_read(now, fs.conditioner.at_wall(sent), header.unique);
  return {request.cpu, handover};
}

// Reads a request; one read in CopyBound::kSampleEvery per thread (see kSampleEveryWarmSlot0)
// records its thread CPU time (the kernel's copy of the request, not the time blocked waiting
// for one) by the bytes after a write's headers. A read's size is known only after it: the
// rarer rate applies while the thread's previous request carried no data (a stream of writes
// keeps the usual rate after its first).
ssize_t read_hook(int fd, void* buf, size_t length, void* userdata) {
  Filesystem& fs = of(userdata);
  thread_local bool named = false;  // libfuse starts its workers unnamed
  if (!named) {
    posix::name_this_thread("dmc-fuse");
    named = true;
  }
  thread_local unsigned reads = 0;
  thread_local bool last_small = true;
  // The request this thread served last is done with, whether or not it reached the model
  // (send_order.h): nobody waits for it any more.
  thread_local uint64_t served = 0;
  if (fs.send_order != nullptr) fs.send_order->reached(served);
  served = 0;
  const bool timed = fs.conditioner.copy_lead_enabled() &&
                     sample(reads, fs.conditioner.request_copy_bound(), last_small);
  const int64_t cpu_before = timed ? thread_cpu_ns() : 0;
  note_request_read(0);
  if (fs.worker_cpus != nullptr) apply_worker_cpus(*fs.worker_cpus);
  const ssize_t n = read(fd, buf, length);
  // The request's arrival for the model (request_arrival.h); not with FUSE over io_uring, whose
  // requests do not come through here.
  SentFrom sent_from;
  if (n >= static_cast<ssize_t>(sizeof(fuse_in_header)) && fs.uring == nullptr) {
    sent_from = note_arrival(fs, *static_cast<const fuse_in_header*>(buf));
    served = static_cast<const fuse_in_header*>(buf)->unique;
    if (fs.worker_cpus != nullptr && sent_from.cpu >= 0) {
      fs.worker_cpus->note(sent_from.cpu, fs.conditioner.replies_waiting(), sent_from.handover_ns,
                           clock_ns(CLOCK_MONOTONIC));
    }
  }
  if (n > 0) {
    last_small = static_cast<uint64_t>(n) <= CopyBound::kWriteHeaderBytes + CopyBound::kSlotBytes;
  }
  if (timed && n > 0) {
    const int saved = errno;
    const int64_t cpu = thread_cpu_ns() - cpu_before;
    const auto bytes = static_cast<uint64_t>(n);
    fs.conditioner.request_copy_bound().record(
        bytes > CopyBound::kWriteHeaderBytes ? bytes - CopyBound::kWriteHeaderBytes : 0, cpu);
    errno = saved;
  }
  // The caller of the request this thread serves next, and its CPU; none if this read brought none.
  set_request_caller(n >= static_cast<ssize_t>(sizeof(fuse_in_header))
                         ? static_cast<pid_t>(static_cast<const fuse_in_header*>(buf)->pid)
                         : 0,
                     sent_from.cpu);
  if (n > 0) {
    fs.killpriv.saw_request(buf, static_cast<size_t>(n));
    if (fs.uring != nullptr) fs.uring->saw_request(buf, static_cast<size_t>(n));
  }
  return n;
}

// A reply's writev; every one carrying more than CopyBound::kSlotBytes, and one smaller in
// CopyBound::kSampleEvery per thread (kSampleEveryWarmSlot0 once slot 0 is ready), records its
// wall time (CLOCK_MONOTONIC: the copy into the caller and the pages' release) by its payload.
// Wall time, not the thread's CPU time: a writev never waits for a request, so its wall time is
// its work plus any interruption (which the minimum of many leaves out) and never less than the
// work; the thread CPU clock can read less on the project's VM (copy_bound.h).
// Timing every large reply makes its minimum reach the fast copies sooner (a sample's minimum
// only approaches theirs from above).
ssize_t timed_writev(Filesystem& fs, int fd, struct iovec* iov, int count) {
  thread_local unsigned writes = 0;
  size_t bytes = 0;
  for (int i = 0; i < count; ++i) bytes += iov[i].iov_len;
  const bool large = bytes > sizeof(fuse_out_header) + CopyBound::kSlotBytes;
  if (!large && !sample(writes, fs.conditioner.reply_copy_bound(), true)) {
    return writev(fd, iov, count);
  }
  const int64_t before = clock_ns(CLOCK_MONOTONIC);
  const ssize_t result = writev(fd, iov, count);
  const int saved = errno;
  const int64_t took = clock_ns(CLOCK_MONOTONIC) - before;
  if (result == static_cast<ssize_t>(bytes) && bytes >= sizeof(fuse_out_header)) {
    fs.conditioner.reply_copy_bound().record(bytes - sizeof(fuse_out_header), took);
  }
  errno = saved;
  return result;
}

ssize_t writev_hook(int fd, struct iovec* iov, int count, void* userdata) {
  Filesystem& fs = of(userdata);
  ssize_t result = 0;
  if (fs.uring != nullptr && fs.uring->reply(iov, count, &result)) return result;
  fs.killpriv.patch_reply(iov, count);
  if (fs.uring == nullptr) return timed_writev(fs, fd, iov, count);
  fs.uring->before_init_reply(iov, count);
  result = writev(fd, iov, count);
  const int saved = errno;
  fs.uring->after_init_reply(iov, count, result);
  errno = saved;
  return result;
}

// A reply spliced from a pipe (ReplyPipes: a read's data from the backing file's page cache).
// Not timed here: the reply's other steps (its header and the move into libfuse's pipe) come
// before this one, and op_read times them all.
ssize_t splice_send_hook(int fdin, off_t* offin, int fdout, off_t* offout, size_t length,
                         unsigned int flags, void* /*userdata*/) {
  return splice(fdin, offin, fdout, offout, length, flags);
}

}  // namespace

int install_session_io(fuse_session* se) {
  fuse_custom_io io{};
  io.read = read_hook;
  io.writev = writev_hook;
  // Offers libfuse's spliced replies (FUSE_CAP_SPLICE_WRITE); op_init wants them only with
  // DISKCOND_SPLICE_REPLIES on, and only reads' replies from ReplyPipes use them.
  io.splice_send = splice_send_hook;
  return fuse_session_custom_io(se, &io, fuse_session_fd(se)) == 0 ? 0 : -1;
}

}  // namespace diskcond::mount
