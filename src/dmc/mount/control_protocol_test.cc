#include "dmc/mount/control_protocol.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "core/profile.h"
#include "dmc/mount/settings_json.h"

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
  st.diagnostics.model_latency_total_ns = 6'173'700'000;
  st.diagnostics.model_overtaken_commands = 11;
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
  EXPECT_EQ(d.model_latency_total_ns, 6'173'700'000);
  EXPECT_EQ(d.model_overtaken_commands, 11u);
  EXPECT_FALSE(back->uid);  // not sent
  EXPECT_FALSE(back->settings.crashable);
}

// The daemon's uid (whose mount it is) and -crashable go both ways.
TEST(MountControlProtocol, StatusCarriesTheDaemonsUidAndCrashable) {
  StatusReply st;
  st.pid = 7;
  st.uid = 1000;
  st.settings = sample();
  st.settings.crashable = true;
  auto back = decode_status(encode_status(st));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->uid, std::optional<uid_t>(1000));
  EXPECT_TRUE(back->settings.crashable);
  std::string bad = encode_status(st);
  bad.replace(bad.find("\"uid\":1000"), 10, "\"uid\":-1");
  EXPECT_FALSE(decode_status(bad).ok()) << bad;
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
  auto pos = text.find("\"io_queue_depth\":16");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 19, "\"io_queue_depth\":0");
  EXPECT_FALSE(decode_request(text).ok());
  text.replace(pos, 18, "\"io_queue_depth\":-1");
  EXPECT_FALSE(decode_request(text).ok());
}

// The wire speaks settings_json.h's vocabulary, the settings store's and -json output's.
TEST(MountControlProtocol, SettingsUseTheOneVocabulary) {
  ControlRequest update;
  update.op = ControlOp::kUpdate;
  update.settings = sample();
  auto j = nlohmann::ordered_json::parse(encode_request(update));
  EXPECT_EQ(j["settings"]["cache"], "no_cache");
  EXPECT_EQ(j["settings"]["profile"], profile_to_json(update.settings.profile));
  EXPECT_EQ(j["settings"]["profile"]["io_queue_depth"], 16);
  EXPECT_EQ(j["settings"]["profile"]["access_time_us"], 52222);
}

// A daemon started by the dmc before issue 14 answers status in its old keys; dmc still reads it.
TEST(MountControlProtocol, StatusOfADaemonFromBeforeIsRead) {
  const std::string old_reply =
      R"({"counters":{"bytes":[0,0,0],"commands":[0,0,0],"floor_read_ns":0.0,"floor_write_ns":0.0,)"
      R"("mean_added_delay_ns":0.0,"queue_occupancy":0},"diagnostics":{"wake_ahead_ns":30000},)"
      R"("mount_point":"/srv/data","ok":true,"pid":42,"settings":{"cache":"page","profile":)"
      R"({"access_time_ns":1500,"max_read_bytes":16777216,"max_read_segments":128,)"
      R"("max_write_bytes":16777216,"max_write_segments":128,"name":"Faulty 5400 HDD",)"
      R"("queue_depth":16,"read_bytes_per_sec":52428800,"spinup_idle_ns":600000000000,)"
      R"("spinup_ns":8000000000,"type":"HDD","write_bytes_per_sec":52428800}}})"
      "\n";
  auto back = decode_status(old_reply);
  ASSERT_TRUE(back.ok()) << back.error();
  Profile expected = builtin_profiles()[0];
  expected.access_time_ns = 1500;
  expected.spinup_idle_ns = 600'000'000'000;
  expected.spinup_ns = 8'000'000'000;
  EXPECT_EQ(back->settings.profile, expected);
  EXPECT_EQ(back->settings.cache, CacheMode::kPageCache);
  EXPECT_EQ(back->diagnostics.wake_ahead_ns, 30000);
  EXPECT_FALSE(back->uid);                 // whose: from the mount table then
  EXPECT_FALSE(back->settings.crashable);  // no undo log before -crashable
  std::string none = old_reply;
  none.replace(none.find("\"page\""), 6, "\"none\"");
  EXPECT_EQ(decode_status(none)->settings.cache, CacheMode::kNoCache);
}

// The fuzzer's seed for the control protocol (fuzz/corpus/control) is a request that decodes, so
// that fuzzing starts from inside the profile's decoding.
TEST(MountControlProtocol, TheFuzzSeedsDecode) {
  for (const char* seed : {"status", "stop", "update"}) {
    std::ifstream in(std::string(DISKCOND_SOURCE_DIR) + "/fuzz/corpus/control/" + seed);
    std::stringstream text;
    text << in.rdbuf();
    auto request = decode_request(text.str());
    EXPECT_TRUE(request.ok()) << seed << ": " << request.error();
  }
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

namespace diskcond::mount {
namespace {

FaultRule sample_rule() {
  auto rule = parse_fault_rule(std::vector<std::string>{"path=*.db", "ops=read,write", "error=EIO",
                                                        "p=0.25", "seed=7", "window=1s-2s"});
  EXPECT_TRUE(rule.ok());
  return *rule;
}

TEST(MountControlProtocol, FaultRequestsAndRepliesRoundTrip) {
  ControlRequest add;
  add.op = ControlOp::kFaultAdd;
  add.rule = sample_rule();
  auto back = decode_request(encode_request(add));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->op, ControlOp::kFaultAdd);
  EXPECT_EQ(back->rule, add.rule);
  ControlRequest remove;
  remove.op = ControlOp::kFaultRemove;
  remove.id = 12;
  EXPECT_EQ(decode_request(encode_request(remove))->id, 12u);
  for (ControlOp op : {ControlOp::kFaultList, ControlOp::kFaultClear}) {
    ControlRequest r;
    r.op = op;
    EXPECT_EQ(decode_request(encode_request(r))->op, op);
  }
  EXPECT_EQ(*decode_fault_added(encode_fault_added(3)), 3u);

  FaultReport report;
  report.injected = 9;
  report.rules.push_back(FaultRuleState{4, sample_rule(), 1'000, 20, 9});
  auto decoded = decode_fault_report(encode_fault_report(report));
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_EQ(decoded->injected, 9u);
  ASSERT_EQ(decoded->rules.size(), 1u);
  EXPECT_EQ(decoded->rules[0].id, 4u);
  EXPECT_EQ(decoded->rules[0].rule, report.rules[0].rule);
  EXPECT_EQ(decoded->rules[0].added_ns, 1'000);
  EXPECT_EQ(decoded->rules[0].matched, 20u);
  EXPECT_EQ(decoded->rules[0].fired, 9u);
}

TEST(MountControlProtocol, TheFaultLogRoundTrips) {
  const std::vector<FaultEvent> events = {
      {1, 5, 2, FaultOp::kRename, "a b/c", 0, 0, FaultAction::kError, EROFS, 0, 42},
      {2, 6, 3, FaultOp::kWrite, "log", 4096, 100, FaultAction::kShort, 0, 50, 43}};
  auto back = decode_fault_log(encode_fault_log(events));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, events);
  ControlRequest r;
  r.op = ControlOp::kFaultLog;
  EXPECT_EQ(decode_request(encode_request(r))->op, ControlOp::kFaultLog);
  EXPECT_FALSE(decode_fault_log(R"({"ok":true,"events":[{"seq":1}]})").ok());
}

TEST(MountControlProtocol, ABadRuleIsRefusedByTheDaemonToo) {
  auto r = decode_request(R"({"op":"fault_add","rule":["ops=read"]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "fault_add: a rule needs one action: error=NAME, short, corrupt, lost-write, bad= or "
            "stall=");
  EXPECT_FALSE(decode_request(R"({"op":"fault_add","rule":"ops=read error=EIO"})").ok());
  EXPECT_FALSE(decode_request(R"({"op":"fault_remove"})").ok());
}

}  // namespace
}  // namespace diskcond::mount
