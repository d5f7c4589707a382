// ControlServer with a fake handler (no mount): several connections at once, silent and slow
// clients that must not delay others, the connection cap, oversized and partial lines.
#include "dmc/mount/control_socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "core/clock.h"
#include "dmc/mount/control_protocol.h"
#include "test_support/scratch_dir.h"

namespace diskcond::mount {
namespace {

int64_t now_ms() {
  return monotonic_now_ns() / 1'000'000;
}

// A connected client socket, or -1.
int connect_to(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

class ControlSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("s.sock");
    auto s = server_.start(path_, [](const std::string& line, uid_t) {
      return line == "ping" ? std::string("pong\n") : encode_error("bad: " + line);
    });
    ASSERT_TRUE(s.ok()) << s.error();
  }
  void TearDown() override {
    for (int fd : idle_) close(fd);
    server_.stop();
  }
  // Opens `n` connections that send nothing.
  void hold_idle(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      int fd = connect_to(path_);
      ASSERT_GE(fd, 0);
      idle_.push_back(fd);
    }
  }

  test_support::ScratchDir dir_{"diskcond-ctl"};
  std::string path_;
  ControlServer server_;
  std::vector<int> idle_;
};

TEST_F(ControlSocketTest, AnswersARequest) {
  auto reply = control_call(path_, "ping\n");
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(*reply, "pong");
}

// One server thread used to serve one connection at a time with a 2 s read timeout: 8 silent
// clients delayed everyone else by 16 s.
TEST_F(ControlSocketTest, SilentClientsDoNotDelayOthers) {
  hold_idle(8);
  int slow = connect_to(path_);  // and one that sends half a line
  ASSERT_GE(slow, 0);
  ASSERT_EQ(write(slow, "pi", 2), 2);
  const int64_t t0 = now_ms();
  auto reply = control_call(path_, "ping\n", 10000);
  const int64_t took = now_ms() - t0;
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(*reply, "pong");
  EXPECT_LT(took, 1500);  // generous; no silent client's deadline (2 s) may be waited for
  // The slow client finishes its line and is answered too.
  ASSERT_EQ(write(slow, "ng\n", 3), 3);
  char buf[64] = {};
  ASSERT_GT(read(slow, buf, sizeof(buf) - 1), 0);
  EXPECT_STREQ(buf, "pong\n");
  close(slow);
}

TEST_F(ControlSocketTest, MoreSilentClientsThanTheCapStillLetOthersIn) {
  hold_idle(kMaxControlConnections + 8);
  const int64_t t0 = now_ms();
  auto reply = control_call(path_, "ping\n", 10000);
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(*reply, "pong");
  EXPECT_LT(now_ms() - t0, 1500);
}

TEST_F(ControlSocketTest, SilentClientIsDroppedAtItsDeadline) {
  hold_idle(1);
  char c;
  const int64_t t0 = now_ms();
  EXPECT_EQ(read(idle_[0], &c, 1), 0);  // EOF: the server closed it
  const int64_t took = now_ms() - t0;
  EXPECT_GE(took, kControlRequestTimeoutMs - 100);
  EXPECT_LT(took, kControlRequestTimeoutMs + 8000);
}

TEST_F(ControlSocketTest, BadAndOversizedLinesGetErrorsAndServingGoesOn) {
  auto bad = control_call(path_, "garbage\n");
  ASSERT_TRUE(bad.ok()) << bad.error();
  EXPECT_FALSE(decode_ack(*bad).ok());
  auto huge = control_call(path_, std::string(kMaxControlLine + 100, 'x'));
  ASSERT_TRUE(huge.ok()) << huge.error();
  EXPECT_FALSE(decode_ack(*huge).ok());
  EXPECT_NE(huge->find("too long"), std::string::npos) << *huge;
  auto reply = control_call(path_, "ping\n");
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(*reply, "pong");
}

}  // namespace
}  // namespace diskcond::mount
