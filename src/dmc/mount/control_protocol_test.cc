#include "dmc/mount/control_protocol.h"

#include <gtest/gtest.h>

#include "core/profile.h"

namespace diskcond::mount {
namespace {

MountSettings sample() {
  MountSettings s;
  s.profile = builtin_profiles()[0];
  s.profile.spinup_idle_ns = 600'000'000'000;
  s.profile.spinup_ns = 8'000'000'000;
  s.cache = CacheMode::kNoCache;
  return s;
}

TEST(MountControlProtocol, RequestsRoundTrip) {
  ControlRequest update;
  update.op = ControlOp::kUpdate;
  update.settings = sample();
  auto back = decode_request(encode_request(update));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->op, ControlOp::kUpdate);
  EXPECT_EQ(back->settings.profile, update.settings.profile);
  EXPECT_EQ(back->settings.cache, CacheMode::kNoCache);

  ControlRequest stop;
  stop.op = ControlOp::kStop;
  stop.force = true;
  auto s = decode_request(encode_request(stop));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->op, ControlOp::kStop);
  EXPECT_TRUE(s->force);
}

TEST(MountControlProtocol, EveryCacheModeRoundTrips) {
  for (CacheMode mode : {CacheMode::kWriteBack, CacheMode::kPageCache, CacheMode::kNoCache}) {
    ControlRequest update;
    update.op = ControlOp::kUpdate;
    update.settings = sample();
    update.settings.cache = mode;
    auto back = decode_request(encode_request(update));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->settings.cache, mode);
  }
}

TEST(MountControlProtocol, StatusRoundTrip) {
  StatusReply st;
  st.pid = 1234;
  st.mount_point = "/tmp/x y";
  st.settings = sample();
  st.counters.commands[1] = 7;
  st.counters.bytes[0] = 1 << 20;
  st.counters.mean_added_delay_ns = 12.5;
  st.counters.queue_occupancy = 3;
  st.counters.floor_read_ns = 40000;
  st.diagnostics.backing_bound_replies = 9;
  st.diagnostics.wake_ahead_ns = 30000;
  st.diagnostics.lateness_replies = 100;
  st.diagnostics.lateness_early_replies = 40;
  st.diagnostics.lateness_p50_ns = 1;
  st.diagnostics.lateness_p90_ns = 2;
  st.diagnostics.lateness_p99_ns = 3;
  st.diagnostics.lateness_p999_ns = 4;
  st.diagnostics.lateness_max_ns = 5;
  auto back = decode_status(encode_status(st));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->pid, 1234);
  EXPECT_EQ(back->mount_point, "/tmp/x y");
  EXPECT_EQ(back->settings.profile, st.settings.profile);
  EXPECT_EQ(back->counters.commands[1], 7u);
  EXPECT_EQ(back->counters.bytes[0], 1u << 20);
  EXPECT_DOUBLE_EQ(back->counters.mean_added_delay_ns, 12.5);
  EXPECT_EQ(back->counters.queue_occupancy, 3u);
  EXPECT_DOUBLE_EQ(back->counters.floor_read_ns, 40000);
  EXPECT_EQ(back->diagnostics.backing_bound_replies, 9u);
  EXPECT_EQ(back->diagnostics.wake_ahead_ns, 30000);
  const MountDiagnostics& d = back->diagnostics;
  EXPECT_EQ(d.lateness_replies, 100u);
  EXPECT_EQ(d.lateness_early_replies, 40u);
  EXPECT_EQ(d.lateness_p50_ns + d.lateness_p90_ns + d.lateness_p99_ns + d.lateness_p999_ns, 10);
  EXPECT_EQ(d.lateness_p999_ns, 4);
  EXPECT_EQ(d.lateness_max_ns, 5);
}

TEST(MountControlProtocol, MalformedRequestsAreErrors) {
  for (const char* bad : {"", "garbage", "[1,2]", "{}", R"({"op":5})", R"({"op":"format"})",
                          R"({"op":"update"})", R"({"op":"update","settings":3})",
                          R"({"op":"stop","force":"yes"})", "{\"op\":\"status\"", "null"}) {
    EXPECT_FALSE(decode_request(bad).ok()) << bad;
  }
  // A well-formed update with an invalid profile (queue depth 0) is refused too.
  ControlRequest update;
  update.op = ControlOp::kUpdate;
  update.settings = sample();
  std::string text = encode_request(update);
  auto pos = text.find("\"queue_depth\":16");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 16, "\"queue_depth\":0");
  EXPECT_FALSE(decode_request(text).ok());
  text.replace(pos, 15, "\"queue_depth\":-1");
  EXPECT_FALSE(decode_request(text).ok());
}

TEST(MountControlProtocol, AcksCarryErrors) {
  EXPECT_TRUE(decode_ack(encode_ok()).ok());
  auto refused = decode_ack(encode_error("busy"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), "busy");
  EXPECT_FALSE(decode_ack("nonsense").ok());
  EXPECT_FALSE(decode_status(encode_ok()).ok());  // an ack is no status
}

}  // namespace
}  // namespace diskcond::mount
