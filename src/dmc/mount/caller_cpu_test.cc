#include "dmc/mount/caller_cpu.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace diskcond::mount {
namespace {

// A /proc/<tid>/stat line with `processor` (field 39) = `cpu` and the given command name.
std::string stat_line(const std::string& comm, int cpu) {
  std::string line = "1234 (" + comm + ") S";
  for (int field = 4; field <= 52; ++field) {
    line += " " + std::to_string(field == 39 ? cpu : field * 10);
  }
  return line + "\n";
}

TEST(MountCallerCpu, ParsesTheProcessorFieldWhateverTheCommandName) {
  EXPECT_EQ(parse_stat_cpu(stat_line("fio", 3)), 3);
  EXPECT_EQ(parse_stat_cpu(stat_line("a) b (c", 1)), 1);  // names may hold ") " and spaces
  EXPECT_EQ(parse_stat_cpu(stat_line("x", 0)), 0);
  EXPECT_EQ(parse_stat_cpu(stat_line("x", 127)), 127);
}

TEST(MountCallerCpu, AMalformedLineGivesNoCpu) {
  EXPECT_EQ(parse_stat_cpu(""), -1);
  EXPECT_EQ(parse_stat_cpu("1234 fio S 1 2 3"), -1);            // no parenthesis
  EXPECT_EQ(parse_stat_cpu("1234 (fio) S 1 2 3 4 5 6 7"), -1);  // too short
  std::string bad = stat_line("fio", 2);
  bad.replace(bad.find(" 2 ", bad.find("380")), 3, " x ");  // field 39 not a number
  EXPECT_EQ(parse_stat_cpu(bad), -1);
}

TEST(MountCallerCpu, ReadsTheCpuAThreadRunsOn) {
  cpu_set_t mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  int pinned_to = -1;
  for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
    if (CPU_ISSET(c, &mask)) pinned_to = c;  // the lowest allowed
  }
  ASSERT_GE(pinned_to, 0);
  std::thread t([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(pinned_to, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    sched_yield();  // runs on it from here on
    EXPECT_EQ(read_thread_cpu(gettid()), pinned_to);
  });
  t.join();
  EXPECT_EQ(read_thread_cpu(0), -1);
  EXPECT_EQ(read_thread_cpu(-5), -1);
}

TEST(MountCallerCpu, EachCallerIsReadOnceARefreshInterval) {
  int cpu = 1;
  std::vector<pid_t> reads;
  CallerCpus callers([&](pid_t tid) {
    reads.push_back(tid);
    return cpu;
  });
  EXPECT_EQ(callers.cpu_of(7, 0), 1);
  cpu = 0;                                                      // it moved
  EXPECT_EQ(callers.cpu_of(7, CallerCpus::kRefreshNs - 1), 1);  // still the cached CPU
  EXPECT_EQ(callers.cpu_of(8, 5), 0);                           // another caller: read
  EXPECT_EQ(callers.cpu_of(7, CallerCpus::kRefreshNs), 0);      // stale: read again
  EXPECT_EQ(callers.cpu_of(0, 0), -1);                          // no caller: nothing read
  EXPECT_EQ(reads, (std::vector<pid_t>{7, 8, 7}));
  EXPECT_EQ(callers.reads(), 3u);
}

TEST(MountCallerCpu, TheCacheStaysBounded) {
  uint64_t reads = 0;
  CallerCpus callers([&](pid_t) {
    ++reads;
    return 0;
  });
  for (pid_t tid = 1; tid <= static_cast<pid_t>(CallerCpus::kMaxCallers); ++tid) {
    callers.cpu_of(tid, 0);
  }
  callers.cpu_of(1, 0);  // cached
  EXPECT_EQ(reads, CallerCpus::kMaxCallers);
  callers.cpu_of(100'000, 0);  // one more caller: the cache starts again
  callers.cpu_of(1, 0);        // read again
  EXPECT_EQ(reads, CallerCpus::kMaxCallers + 2);
}

TEST(MountCallerCpu, TheRequestCallerIsPerThread) {
  set_request_caller(99, 1);
  pid_t other = -1;
  int other_cpu = 0;
  std::thread([&] {
    other = request_caller();
    other_cpu = request_caller_cpu();
  }).join();
  EXPECT_EQ(request_caller(), 99);
  EXPECT_EQ(request_caller_cpu(), 1);
  EXPECT_EQ(other, 0);
  EXPECT_EQ(other_cpu, -1);
  set_request_caller(0);
  EXPECT_EQ(request_caller_cpu(), -1);
}

}  // namespace
}  // namespace diskcond::mount
