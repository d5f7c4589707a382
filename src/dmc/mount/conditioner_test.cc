#include "dmc/mount/conditioner.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "core/units.h"
#include "dmc/mount/request_arrival.h"
#include "dmc/mount/send_order.h"
#include "dmc/mount/send_stamps_fake.h"

namespace diskcond::mount {
namespace {

constexpr int64_t kUs = kNsPerUs;
constexpr int64_t kMs = kNsPerMs;
constexpr uint64_t kCapacity = 100 * kGiB;
constexpr int64_t kStart = 1000 * kMs;

// "Slow SSD": a 4 KiB read on an idle disk takes 100 us + 15,625 ns, a 4 KiB write 100 us +
// 31,250 ns (core/disk_model.h).
constexpr int64_t kRead4k = 100 * kUs + 15'625;
constexpr int64_t kWrite4k = 100 * kUs + 31'250;

Profile slow_ssd() {
  Profile p;
  p.name = "test slow ssd";
  p.type = DiskType::kSSD;
  p.access_time_ns = 100 * kUs;
  p.read_bytes_per_sec = 250 * kMiB;
  p.write_bytes_per_sec = 125 * kMiB;
  p.queue_depth = 32;
  return p;
}

// Records each reply and its due time instead of sending it; the test runs them.
class RecordingTimer final : public ReplyTimer {
 public:
  void at_cpu(int64_t due_ns, int cpu, Reply reply) override {
    sent.push_back({due_ns, std::move(reply)});
    cpus.push_back(cpu);
  }
  bool routes_by_cpu() const override { return routes; }
  bool routes = true;
  struct Sent {
    int64_t due_ns;
    Reply reply;
  };
  std::vector<Sent> sent;
  std::vector<int> cpus;  // the CPU each reply asked for
};

class MountConditioner : public ::testing::Test {
 protected:
  // The transit lead the probes give: `round_trip_ns`, at most kMaxTransitLeadNs.
  void probe_round_trips(int64_t round_trip_ns) {
    for (uint64_t i = 0; i < TransitBound::kMinProbes; ++i) {
      conditioner.transit_bound().record(round_trip_ns);
    }
  }
  // Enough request copies for the bound to count: 4 us for a request without data, 104 us for a
  // 1 MiB write (a 1 MiB write's copy lead is then 3/4 of the 100 us between them).
  void copy_requests() {
    CopyBound& requests = conditioner.request_copy_bound();
    for (uint64_t i = 0; i < CopyBound::kMinSamples; ++i) {
      requests.record(0, 4 * kUs);
      requests.record(kMiB, 104 * kUs);
    }
  }
  // Finishes `t` with a reply that records it ran.
  void finish(Ticket t) {
    conditioner.finish(std::move(t), [this] { ++ran; });
  }

  FakeClock clock{kStart};
  RecordingTimer timer;
  Conditioner conditioner{slow_ssd(), kCapacity, clock, timer};
  int ran = 0;  // replies run at once by finish() (not handed to the timer)
};

TEST_F(MountConditioner, BeginTakesTheArrivalAndChargesAreSubmittedAtIt) {
  Ticket t = conditioner.begin(Op::kRead, 4096);
  EXPECT_EQ(t.arrival_ns(), kStart);
  EXPECT_EQ(t.completion_ns(), kStart);
  EXPECT_EQ(t.op(), Op::kRead);
  EXPECT_EQ(t.length(), 4096u);
  EXPECT_EQ(t.kind(), RequestKind::kData);
  clock.advance(30 * kUs);  // the handler took a while before its submit: the model does not see it
  conditioner.submit(t, Op::kRead, 0, 4096);
  EXPECT_EQ(t.completion_ns(), kStart + kRead4k);
  // Two pieces of one request: it waits for the later. Both occupy the device from the arrival.
  conditioner.submit(t, Op::kRead, kGiB, 4096);
  EXPECT_EQ(t.completion_ns(), kStart + 100 * kUs + 2 * 15'625);
  // Status's model_latency_total_ns: each submitted command's completion less its arrival, summed.
  EXPECT_EQ(conditioner.model_latency_total_ns(), kRead4k + 100 * kUs + 2 * 15'625);
  finish(std::move(t));
  EXPECT_FALSE(t.live());  // finish() took it
  EXPECT_EQ(conditioner.ticket_misuses(), 0u);
}

// A request's arrival is when its worker read it from /dev/fuse (noted by session_io.cc), not the
// later call of begin(): the handler's work before it is the device's time. The note is taken once.
TEST_F(MountConditioner, TheNotedReadOfTheRequestIsItsArrivalOnce) {
  note_request_read(kStart - 7 * kUs);
  Ticket first = conditioner.begin(Op::kRead, 4096);
  EXPECT_EQ(first.arrival_ns(), kStart - 7 * kUs);
  conditioner.submit(first, Op::kRead, 0, 4096);
  EXPECT_EQ(first.completion_ns(), kStart - 7 * kUs + kRead4k);
  Ticket second = conditioner.begin_metadata();  // no new read: arrives when it begins
  EXPECT_EQ(second.arrival_ns(), kStart);
  finish(std::move(first));
  finish(std::move(second));
}

// A note from another clock's future (or a stale one after the clock was reset) is not used: a
// request never arrives after it begins.
TEST_F(MountConditioner, ANotedReadLaterThanNowIsIgnored) {
  note_request_read(kStart + 3 * kUs);
  Ticket t = conditioner.begin(Op::kRead, 4096);
  EXPECT_EQ(t.arrival_ns(), kStart);
  EXPECT_EQ(take_request_read().ns, 0);  // and it is gone
  finish(std::move(t));
}

// The kernel's send, when stamped (send_stamps.h), is the arrival: the hand-over to the worker is
// the device's time too. A send noted later than the read is not believed (the read stays).
TEST_F(MountConditioner, TheKernelsSendOfTheRequestIsItsArrivalWhenStamped) {
  note_request_read(kStart - 7 * kUs, kStart - 19 * kUs);
  Ticket sent = conditioner.begin(Op::kRead, 4096);
  EXPECT_EQ(sent.arrival_ns(), kStart - 19 * kUs);
  conditioner.submit(sent, Op::kRead, 0, 4096);
  EXPECT_EQ(sent.completion_ns(), kStart - 19 * kUs + kRead4k);
  finish(std::move(sent));
  note_request_read(kStart - 7 * kUs, kStart - 6 * kUs);
  EXPECT_EQ(conditioner.arrival_now().ns, kStart - 7 * kUs);
  note_request_read(kStart - 7 * kUs, kStart - 6 * kUs);
  const Arrival read = take_request_read();
  EXPECT_EQ(read.ns, kStart - 7 * kUs);
  EXPECT_FALSE(read.kernel_sent);
  note_request_read(kStart - 7 * kUs, kStart - 9 * kUs);
  const Arrival stamped = conditioner.arrival_now();
  EXPECT_EQ(stamped.ns, kStart - 9 * kUs);
  EXPECT_TRUE(stamped.kernel_sent);
}

// A write's data reaches the daemon after the kernel's send; a write that arrived at its send has
// that copy inside the model's time already, so its reply gets no lead for it (only the transit
// lead), where a write that arrived at its worker's read gets both.
TEST_F(MountConditioner, AWriteArrivingAtItsSendGetsNoLeadForItsCopy) {
  probe_round_trips(3 * kUs);
  copy_requests();
  note_request_read(kStart, kStart - 90 * kUs);
  Ticket stamped = conditioner.begin(Op::kWrite, kMiB);
  conditioner.submit(stamped, Op::kWrite, 0, kMiB);
  const int64_t stamped_done = stamped.completion_ns();
  finish(std::move(stamped));
  note_request_read(kStart);
  Ticket read = conditioner.begin(Op::kWrite, kMiB);
  conditioner.submit(read, Op::kWrite, 32 * kMiB, kMiB);
  const int64_t read_done = read.completion_ns();
  finish(std::move(read));
  ASSERT_EQ(timer.sent.size(), 2u);
  EXPECT_EQ(timer.sent[0].due_ns, stamped_done - 3 * kUs);
  EXPECT_EQ(timer.sent[1].due_ns, read_done - 78 * kUs);
}

TEST_F(MountConditioner, ADataReplyIsDueAtTheModelCompletionLessTheTransitLead) {
  probe_round_trips(3 * kUs);
  EXPECT_EQ(conditioner.transit_lead_ns(), 3 * kUs);  // the probes' fastest trip
  Ticket t = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(t, Op::kRead, 0, 4096);
  clock.advance(40 * kUs);  // the backing read
  finish(std::move(t));
  ASSERT_EQ(timer.sent.size(), 1u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart + kRead4k - 3 * kUs);
  EXPECT_EQ(ran, 0);  // handed to the timer, not sent by finish()
  const MountCounters c = conditioner.counters();
  EXPECT_EQ(c.commands[static_cast<int>(Op::kRead)], 1u);
  EXPECT_EQ(c.bytes[static_cast<int>(Op::kRead)], 4096u);
  EXPECT_DOUBLE_EQ(c.mean_added_delay_ns, static_cast<double>(kRead4k - 3 * kUs - 40 * kUs));
  EXPECT_DOUBLE_EQ(c.floor_read_ns, static_cast<double>(40 * kUs));  // service as delivered
  EXPECT_EQ(c.floor_write_ns, 0);
  EXPECT_EQ(conditioner.backing_bound().replies, 0u);
}

TEST_F(MountConditioner, WithoutTheLeadADataReplyIsDueAtTheModelCompletion) {
  probe_round_trips(3 * kUs);
  conditioner.set_transit_lead_enabled(false);
  EXPECT_EQ(conditioner.transit_lead_ns(), 0);
  Ticket t = conditioner.begin(Op::kWrite, 4096);
  conditioner.submit(t, Op::kWrite, 0, 4096);
  finish(std::move(t));
  ASSERT_EQ(timer.sent.size(), 1u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart + kWrite4k);
  EXPECT_DOUBLE_EQ(conditioner.counters().floor_write_ns, 1);  // done at once: the 1 ns minimum
}

TEST_F(MountConditioner, DataAlsoLeadsByItsCopyIntoTheCallerOrTheDaemon) {
  probe_round_trips(3 * kUs);
  CopyBound& copies = conditioner.reply_copy_bound();
  for (uint64_t i = 0; i < CopyBound::kMinSamples; ++i) {
    copies.record(104, 3 * kUs);     // replies without data (the probes' getattr)
    copies.record(kMiB, 183 * kUs);  // 1 MiB read replies
  }
  EXPECT_EQ(conditioner.data_lead_ns(kMiB), 3 * kUs + 135 * kUs);  // 3/4 of (183 us less 3 us)
  Ticket t = conditioner.begin(Op::kRead, kMiB);
  conditioner.submit(t, Op::kRead, 0, kMiB);
  EXPECT_EQ(t.completion_ns(), kStart + 100 * kUs + 4 * kMs);  // 1 MiB at 250 MiB/s
  conditioner.finish(
      std::move(t), [] {}, kMiB);
  // A short read (its reply carries 4 KiB) gets only the transit lead; so does a write's reply.
  Ticket shorter = conditioner.begin(Op::kRead, kMiB);
  conditioner.submit(shorter, Op::kRead, 8 * kMiB, kMiB);
  const int64_t shorter_done = shorter.completion_ns();
  conditioner.finish(
      std::move(shorter), [] {}, 4096);
  Ticket w = conditioner.begin(Op::kWrite, kMiB);
  conditioner.submit(w, Op::kWrite, 16 * kMiB, kMiB);
  const int64_t write_done = w.completion_ns();
  finish(std::move(w));
  ASSERT_EQ(timer.sent.size(), 3u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart + 100 * kUs + 4 * kMs - 138 * kUs);
  EXPECT_EQ(timer.sent[1].due_ns, shorter_done - 3 * kUs);
  EXPECT_EQ(timer.sent[2].due_ns, write_done - 3 * kUs);
  // A write's data copied into the daemon (its request's reads' CPU time) leads a write's reply.
  copy_requests();
  EXPECT_EQ(conditioner.data_lead_ns(0, kMiB), 3 * kUs + 75 * kUs);
  Ticket w2 = conditioner.begin(Op::kWrite, kMiB);
  conditioner.submit(w2, Op::kWrite, 32 * kMiB, kMiB);
  const int64_t write2_done = w2.completion_ns();
  finish(std::move(w2));
  ASSERT_EQ(timer.sent.size(), 4u);
  EXPECT_EQ(timer.sent[3].due_ns, write2_done - 78 * kUs);
  // Off (DISKCOND_COPY_LEAD=off): the transit lead alone.
  conditioner.set_copy_lead_enabled(false);
  EXPECT_EQ(conditioner.data_lead_ns(kMiB, kMiB), 3 * kUs);
  conditioner.set_copy_lead_enabled(true);
  conditioner.set_transit_lead_enabled(false);  // DISKCOND_TRANSIT_LEAD=off: no lead at all
  EXPECT_EQ(conditioner.data_lead_ns(kMiB, kMiB), 0);
}

// Where the send stamps say which CPU the caller sent the request from, its reply goes there and
// /proc is not read.
TEST_F(MountConditioner, AReplyThatWaitsGoesToTheCpuItsCallerSentFrom) {
  std::vector<pid_t> asked;
  CallerCpus callers([&](pid_t tid) {
    asked.push_back(tid);
    return 1;
  });
  conditioner.set_caller_cpus(&callers);
  set_request_caller(4242, 0);
  Ticket stamped = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(stamped, Op::kRead, 0, 4096);
  finish(std::move(stamped));
  set_request_caller(4242);  // not stamped: its CPU from /proc
  Ticket unstamped = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(unstamped, Op::kRead, 0, 4096);
  finish(std::move(unstamped));
  set_request_caller(0);
  ASSERT_EQ(timer.cpus.size(), 2u);
  EXPECT_EQ(timer.cpus[0], 0);
  EXPECT_EQ(timer.cpus[1], 1);
  EXPECT_EQ(asked, std::vector<pid_t>{4242});
}

// Probes that only saw slow trips (a start-up under load) give no more than the cap: a caller
// whose own trip is far shorter gets its reply at most kMaxTransitLeadNs before the model's time.
TEST_F(MountConditioner, AReplyThatWaitsAsksForItsCallersCpu) {
  Ticket unrouted = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(unrouted, Op::kRead, 0, 4096);
  finish(std::move(unrouted));  // no CallerCpus set: any CPU
  std::vector<pid_t> asked;
  CallerCpus callers([&](pid_t tid) {
    asked.push_back(tid);
    return 1;
  });
  conditioner.set_caller_cpus(&callers);
  set_request_caller(4242);  // as session_io does for the request this thread serves
  Ticket waits = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(waits, Op::kRead, 0, 4096);
  finish(std::move(waits));
  // A reply whose backing I/O outlasted the model is due at once: nobody is asked.
  Ticket late = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(late, Op::kRead, 0, 4096);
  clock.advance(kMs);
  finish(std::move(late));
  // Nor when it waits less than kMinRoutedWaitNs: the CPU's lane could not be there in time (and
  // this wait is too long for the worker to spin for).
  Ticket brief = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(brief, Op::kRead, 0, 4096);
  clock.advance(brief.completion_ns() - clock.now_ns() - Conditioner::kMinRoutedWaitNs + 1);
  finish(std::move(brief));
  // Nor when the timer would not use the CPU (too many replies waiting).
  timer.routes = false;
  Ticket deep = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(deep, Op::kRead, 0, 4096);
  finish(std::move(deep));
  set_request_caller(0);
  ASSERT_EQ(timer.cpus.size(), 5u);
  EXPECT_EQ(timer.cpus[0], ReplyTimer::kAnyCpu);
  EXPECT_EQ(timer.cpus[1], 1);
  EXPECT_EQ(timer.cpus[2], ReplyTimer::kAnyCpu);
  EXPECT_EQ(timer.cpus[3], ReplyTimer::kAnyCpu);
  EXPECT_EQ(timer.cpus[4], ReplyTimer::kAnyCpu);
  EXPECT_EQ(asked, std::vector<pid_t>{4242});
}

// Only a request served alone: the worker then holds no CPU another request needs.
TEST_F(MountConditioner, AWorkerWaitsForAShortReplyOnlyWhenItsRequestIsAlone) {
  const auto finish_short = [&](Ticket t, int64_t wait_ns = ReplyTimer::kMaxSpinWaitNs - 1) {
    clock.advance(t.completion_ns() - clock.now_ns() - wait_ns);
    finish(std::move(t));
    return timer.cpus.back();
  };
  Ticket first = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(first, Op::kRead, 0, 4096);
  Ticket second = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(second, Op::kRead, 4096, 4096);
  Ticket lookup = conditioner.begin_metadata();  // any request counts, charged or not
  EXPECT_EQ(finish_short(std::move(first)), ReplyTimer::kAnyCpu);
  finish(std::move(lookup));  // answered at once
  EXPECT_EQ(finish_short(std::move(second)), ReplyTimer::kThisThread);
  Ticket longer = conditioner.begin(Op::kRead, 4096);  // alone, but waits too long to spin for
  conditioner.submit(longer, Op::kRead, 12288, 4096);
  EXPECT_EQ(finish_short(std::move(longer), ReplyTimer::kMaxSpinWaitNs), ReplyTimer::kAnyCpu);
  conditioner.set_worker_spin(false);  // DISKCOND_WORKER_SPIN=off
  Ticket off = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(off, Op::kRead, 8192, 4096);
  EXPECT_EQ(finish_short(std::move(off)), ReplyTimer::kAnyCpu);
  EXPECT_EQ(ran, 1);
}

TEST_F(MountConditioner, TheTransitLeadIsCapped) {
  probe_round_trips(30 * kUs);
  EXPECT_EQ(conditioner.transit_lead_ns(), Conditioner::kMaxTransitLeadNs);
  EXPECT_EQ(Conditioner::kMaxTransitLeadNs, 5 * kUs);
}

TEST_F(MountConditioner, AReplyNeverLeavesBeforeItsBackingIoIsDone) {
  probe_round_trips(3 * kUs);
  Ticket t = conditioner.begin(Op::kRead, 4096);
  conditioner.submit(t, Op::kRead, 0, 4096);
  clock.advance(kRead4k + 7 * kUs);  // the host's disk was slower than the profile
  finish(std::move(t));
  ASSERT_EQ(timer.sent.size(), 1u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart + kRead4k + 7 * kUs);
  const BackingBound bound = conditioner.backing_bound();
  EXPECT_EQ(bound.replies, 1u);
  EXPECT_DOUBLE_EQ(bound.mean_excess_ns, static_cast<double>(7 * kUs));
  EXPECT_DOUBLE_EQ(conditioner.counters().mean_added_delay_ns, 0);
  EXPECT_DOUBLE_EQ(conditioner.counters().floor_read_ns, static_cast<double>(kRead4k + 7 * kUs));
}

TEST_F(MountConditioner, OnlyFourKibDataRequestsSetTheFloor) {
  Ticket big = conditioner.begin(Op::kRead, 8192);
  conditioner.submit(big, Op::kRead, 0, 8192);
  clock.advance(3 * kUs);
  finish(std::move(big));
  Ticket meta = conditioner.begin_metadata();
  conditioner.change_metadata(meta, 1, 4096, /*journaled=*/false);  // 4 KiB, but not data
  clock.advance(3 * kUs);
  finish(std::move(meta));
  EXPECT_EQ(conditioner.counters().floor_read_ns, 0);
  EXPECT_EQ(conditioner.counters().floor_write_ns, 0);
  // The fastest 4 KiB write wins.
  for (int64_t took : {9 * kUs, 4 * kUs, 6 * kUs}) {
    Ticket w = conditioner.begin(Op::kWrite, 4096);
    conditioner.submit(w, Op::kWrite, 0, 4096);
    clock.advance(took);
    finish(std::move(w));
  }
  EXPECT_DOUBLE_EQ(conditioner.counters().floor_write_ns, static_cast<double>(4 * kUs));
  EXPECT_EQ(conditioner.counters().floor_read_ns, 0);
}

TEST_F(MountConditioner, AMetadataChangeIsAFourKibWriteOfItsBlockWithNoLead) {
  probe_round_trips(3 * kUs);
  Ticket t = conditioner.begin_metadata();
  EXPECT_EQ(t.kind(), RequestKind::kMetadata);
  EXPECT_FALSE(t.conditioned());
  conditioner.change_metadata(t, 1, 10 * 4096 + 100, /*journaled=*/false);
  EXPECT_TRUE(t.conditioned());
  EXPECT_EQ(t.op(), Op::kWrite);
  EXPECT_EQ(t.length(), kMetadataWriteBytes);
  EXPECT_EQ(t.completion_ns(), kStart + kWrite4k);
  clock.advance(10 * kUs);
  finish(std::move(t));
  ASSERT_EQ(timer.sent.size(), 1u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart + kWrite4k);  // no transit lead for metadata
  const MountCounters c = conditioner.counters();
  EXPECT_EQ(c.commands[static_cast<int>(Op::kWrite)], 1u);
  EXPECT_EQ(c.bytes[static_cast<int>(Op::kWrite)], kMetadataWriteBytes);
  EXPECT_DOUBLE_EQ(c.mean_added_delay_ns, static_cast<double>(kWrite4k - 10 * kUs));
}

TEST_F(MountConditioner, AJournaledChangeCompletesAtOnceButIsStillConditioned) {
  Ticket t = conditioner.begin_metadata();
  conditioner.change_metadata(t, 1, 4096, /*journaled=*/true);
  EXPECT_EQ(t.completion_ns(), kStart);
  EXPECT_TRUE(t.conditioned());
  clock.advance(2 * kUs);
  finish(std::move(t));
  ASSERT_EQ(timer.sent.size(), 1u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart + 2 * kUs);  // when the backing change was done
  EXPECT_EQ(conditioner.writeback_counters().journal_entries, 1u);
  EXPECT_EQ(conditioner.backing_bound().replies, 1u);
  EXPECT_EQ(conditioner.counters().commands[static_cast<int>(Op::kWrite)], 0u);
}

TEST_F(MountConditioner, AMetadataRequestThatReadNothingIsAnsweredAtOnceAndNotCounted) {
  Ticket t = conditioner.begin_metadata();  // a lookup of an inode the layout holds
  clock.advance(5 * kUs);
  finish(std::move(t));
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(timer.sent.empty());
  EXPECT_EQ(conditioner.backing_bound().replies, 0u);
  // A lookup that had to read its inode-table block waits for it.
  Ticket read = conditioner.begin_metadata();
  conditioner.submit(read, Op::kRead, 0, 4096);
  finish(std::move(read));
  ASSERT_EQ(timer.sent.size(), 1u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart + 5 * kUs + kRead4k);
  EXPECT_DOUBLE_EQ(conditioner.counters().mean_added_delay_ns, static_cast<double>(kRead4k));
  EXPECT_EQ(conditioner.counters().floor_read_ns, 0);  // metadata reads are not the floor
}

TEST_F(MountConditioner, ADataRequestIsConditionedEvenWithNothingToCharge) {
  Ticket hole = conditioner.begin(Op::kRead, 4096);  // a read of a hole: no device piece
  EXPECT_TRUE(hole.conditioned());
  clock.advance(3 * kUs);
  finish(std::move(hole));
  ASSERT_EQ(timer.sent.size(), 1u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart + 3 * kUs);
  EXPECT_DOUBLE_EQ(conditioner.counters().floor_read_ns, static_cast<double>(3 * kUs));
}

TEST_F(MountConditioner, AFlushWaitsForEarlierWritesAndACloseThatChargesNothingDoesNot) {
  Ticket w = conditioner.begin(Op::kWrite, 4096);
  conditioner.submit(w, Op::kWrite, 0, 4096);
  finish(std::move(w));
  Ticket flush = conditioner.begin(Op::kFlush, 0);
  EXPECT_EQ(flush.kind(), RequestKind::kFlush);
  conditioner.submit(flush, Op::kFlush, 0, 0);
  EXPECT_EQ(flush.completion_ns(), kStart + kWrite4k);
  finish(std::move(flush));
  ASSERT_EQ(timer.sent.size(), 2u);
  EXPECT_EQ(timer.sent[1].due_ns, kStart + kWrite4k);
  Ticket close = conditioner.begin(Op::kFlush, 0);  // write-back mode: close does not wait
  finish(std::move(close));
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(timer.sent.size(), 2u);
}

TEST_F(MountConditioner, WriteBackChargesGoThroughTheWritebackModel) {
  probe_round_trips(3 * kUs);
  Ticket w = conditioner.begin(Op::kWrite, 4096);
  conditioner.buffered_write(w, 7, 0, 4096, 1 << 20);
  EXPECT_EQ(w.completion_ns(), kStart);  // dirty data: acknowledged at once
  finish(std::move(w));
  EXPECT_EQ(conditioner.writeback_counters().dirty_bytes, 4096u);
  Ticket sync = conditioner.begin(Op::kFlush, 0);
  conditioner.fsync(sync, 7);
  const int64_t synced = sync.completion_ns();
  EXPECT_GT(synced, kStart + kWrite4k);  // the data, the journal commit, a flush
  finish(std::move(sync));
  EXPECT_EQ(conditioner.writeback_counters().written_back_bytes, 4096u);  // the file's data
  EXPECT_EQ(conditioner.writeback_counters().commits, 1u);
  ASSERT_EQ(timer.sent.size(), 2u);
  EXPECT_EQ(timer.sent[0].due_ns, kStart);  // the write: dirty at once
  EXPECT_EQ(timer.sent[1].due_ns, synced);  // an fsync gets no transit lead
}

// Misuse is counted (and fails an assert in debug builds, where these tests expect the death).
TEST_F(MountConditioner, ATicketDroppedUnfinishedIsCounted) {
  EXPECT_DEBUG_DEATH({ Ticket forgotten = conditioner.begin(Op::kRead, 4096); }, "Ticket");
#ifdef NDEBUG
  EXPECT_EQ(conditioner.ticket_misuses(), 1u);
#endif
}

TEST_F(MountConditioner, ATicketFinishedTwiceIsCountedAndItsReplyStillGoes) {
  Ticket t = conditioner.begin_metadata();
  finish(std::move(t));
  EXPECT_EQ(conditioner.ticket_misuses(), 0u);
  EXPECT_DEBUG_DEATH(finish(std::move(t)), "Ticket");  // t was moved from: empty
#ifdef NDEBUG
  EXPECT_EQ(conditioner.ticket_misuses(), 1u);
  EXPECT_EQ(ran, 2);  // a caller is never left without a reply
#endif
}

TEST_F(MountConditioner, ChargingAFinishedTicketIsCountedAndChargesNothing) {
  Ticket t = conditioner.begin(Op::kRead, 4096);
  finish(std::move(t));
  EXPECT_DEBUG_DEATH(conditioner.submit(t, Op::kRead, 0, 4096), "Ticket");
#ifdef NDEBUG
  EXPECT_EQ(conditioner.ticket_misuses(), 1u);
  EXPECT_EQ(conditioner.counters().commands[static_cast<int>(Op::kRead)], 0u);
#endif
}

TEST_F(MountConditioner, ATicketFinishedByAnotherConditionerIsCounted) {
  Conditioner other(slow_ssd(), kCapacity, clock, timer);
  Ticket t = conditioner.begin_metadata();
  EXPECT_DEBUG_DEATH(other.finish(std::move(t), [] {}), "Ticket");
#ifdef NDEBUG
  EXPECT_EQ(other.ticket_misuses(), 1u);
  EXPECT_EQ(conditioner.ticket_misuses(), 0u);
#else
  finish(std::move(t));  // the death happened in a child; here the ticket is still live
#endif
}

// The same profile as an HDD's (its order of commands costs seeks).
Profile slow_hdd() {
  Profile p = slow_ssd();
  p.type = DiskType::kHDD;
  return p;
}

// Reads 10 and 12 sent 2 us apart, and 12 read by this thread (sent 5 us before kStart).
void read_12_after_read_10(FakeSendStamps& stamps) {
  stamps.stamp(10, 5 * kMs, FUSE_READ);
  stamps.stamp(12, 5 * kMs + 2 * kUs, FUSE_READ);
  note_request_read(kStart, kStart - 5 * kUs, 12);
}

// Data requests reach an HDD's model in the kernel's order of sending them (send_order.h): a read
// whose earlier-sent read has not reached the model waits for it (here in vain: nobody else runs,
// so the wait runs out), and its charged() tells the order it got there.
TEST_F(MountConditioner, OnAnHddAReadWaitsForTheReadsSentBeforeIt) {
  Conditioner disk{slow_hdd(), kCapacity, clock, timer};
  FakeSendStamps stamps;
  SendOrder order(stamps.table(), 100 * kUs);
  disk.set_send_order(&order);
  read_12_after_read_10(stamps);
  Ticket t = disk.begin(Op::kRead, kMiB);
  EXPECT_EQ(t.arrival_ns(), kStart - 5 * kUs);  // the wait does not move the arrival
  EXPECT_EQ(order.waits(), 1u);
  EXPECT_EQ(order.timeouts(), 1u);
  stamps.stamp(14, 5 * kMs + 4 * kUs, FUSE_READ);
  EXPECT_EQ(order.earlier_unreached(14), 12u);
  disk.submit(t, Op::kRead, 0, kMiB);
  disk.submit(t, Op::kRead, 4 * kMiB, kMiB);  // a second piece: 12 is not there until it says so
  EXPECT_EQ(order.earlier_unreached(14), 12u);
  disk.charged(t);
  EXPECT_EQ(order.earlier_unreached(14), 10u);
  disk.finish(std::move(t), [] {});
  // A read that charges nothing (a hole) gets there when it is finished.
  order.reached(10);
  note_request_read(kStart, kStart - 1 * kUs, 14);
  Ticket hole = disk.begin(Op::kRead, kMiB);
  EXPECT_EQ(order.waits(), 1u);  // nothing to wait for
  stamps.stamp(16, 5 * kMs + 6 * kUs, FUSE_WRITE);
  EXPECT_EQ(order.earlier_unreached(16), 14u);
  disk.finish(std::move(hole), [] {});
  EXPECT_EQ(order.earlier_unreached(16), 0u);
}

// An SSD's model does not depend on the order of its commands' arrival: nobody waits.
TEST_F(MountConditioner, OnAnSsdNoReadWaitsForOthers) {
  FakeSendStamps stamps;
  SendOrder order(stamps.table(), 100 * kUs);
  conditioner.set_send_order(&order);
  read_12_after_read_10(stamps);
  Ticket t = conditioner.begin(Op::kRead, kMiB);
  EXPECT_EQ(order.waits(), 0u);
  conditioner.submit(t, Op::kRead, 0, kMiB);
  finish(std::move(t));
  // A profile changed to an HDD's waits from then on.
  conditioner.set_profile(slow_hdd());
  stamps.stamp(14, 5 * kMs + 4 * kUs, FUSE_READ);
  note_request_read(kStart, kStart - 1 * kUs, 14);
  Ticket later = conditioner.begin(Op::kRead, kMiB);
  EXPECT_EQ(order.waits(), 1u);  // for 10, which never got there
  finish(std::move(later));
}

}  // namespace
}  // namespace diskcond::mount
