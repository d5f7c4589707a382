#include "posix/thread_name.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace diskcond::posix {
namespace {

// Runs `f` on a thread of its own, so that naming it leaves the test runner's thread alone.
template <class F>
void on_a_new_thread(F f) {
  std::thread t(f);
  t.join();
}

TEST(ThreadName, TheKernelKeepsAShortName) {
  std::string seen;
  on_a_new_thread([&] {
    name_this_thread("dmc-reply");
    seen = this_thread_name();
  });
  EXPECT_EQ(seen, "dmc-reply");
}

TEST(ThreadName, ALongNameIsCutToFifteenBytesRatherThanRefused) {
  std::string seen;
  on_a_new_thread([&] {
    name_this_thread("dmc-reply-cpu-12345");
    seen = this_thread_name();
  });
  EXPECT_EQ(seen, "dmc-reply-cpu-1");
  EXPECT_EQ(seen.size(), kMaxThreadNameBytes);
}

}  // namespace
}  // namespace diskcond::posix
