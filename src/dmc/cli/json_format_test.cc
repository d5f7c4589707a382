#include "dmc/cli/json_format.h"

#include <gtest/gtest.h>

#include "core/units.h"
#include "dmc/mount/settings_json.h"

namespace diskcond::dmc {
namespace {

using json = nlohmann::ordered_json;

std::vector<std::string> keys_of(const json& j) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  return keys;
}

const std::vector<std::string> kProfileKeys = {"name",
                                               "type",
                                               "access_time_us",
                                               "read_throughput_bytes_per_sec",
                                               "write_throughput_bytes_per_sec",
                                               "io_queue_depth",
                                               "max_read_bytes",
                                               "max_write_bytes",
                                               "max_read_segments",
                                               "max_write_segments",
                                               "spinup_idle_ns",
                                               "spinup_time_ns",
                                               "latency_tail",
                                               "latency_seed",
                                               "capacity_bytes"};

TEST(DmcJson, ProfileKeysCarryUnitsAndValues) {
  json j = mount::profile_to_json(builtin_profiles()[0]);
  EXPECT_EQ(keys_of(j), kProfileKeys);
  EXPECT_EQ(j["name"], "Faulty 5400 HDD");
  EXPECT_EQ(j["type"], "HDD");
  EXPECT_EQ(j["access_time_us"], 52222);
  EXPECT_EQ(j["read_throughput_bytes_per_sec"], 50 * kMiB);
  EXPECT_EQ(j["io_queue_depth"], 16);
  EXPECT_EQ(j["max_write_bytes"], 16 * kMiB);
}

TEST(DmcJson, EveryBuiltinRoundTrips) {
  for (const Profile& p : builtin_profiles()) {
    auto back = mount::profile_from_json(json::parse(mount::profile_to_json(p).dump()));
    ASSERT_TRUE(back.ok()) << p.name << ": " << back.error();
    EXPECT_EQ(*back, p) << p.name;
  }
}

TEST(DmcJson, FractionalAccessTimeAndSpinUpRoundTrip) {
  Profile p = builtin_profiles()[1];
  p.access_time_ns = 1500;
  p.spinup_ns = 8 * kNsPerSec;
  p.spinup_idle_ns = 600 * kNsPerSec;
  json j = mount::profile_to_json(p);
  EXPECT_DOUBLE_EQ(j["access_time_us"].get<double>(), 1.5);
  auto back = mount::profile_from_json(json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, p);
}

TEST(DmcJson, ProfileParsingIsStrict) {
  json good = mount::profile_to_json(builtin_profiles()[3]);
  auto expect_error = [](json j, const std::string& needle) {
    auto r = mount::profile_from_json(j);
    ASSERT_FALSE(r.ok()) << j.dump();
    EXPECT_NE(r.error().find(needle), std::string::npos) << r.error();
  };
  json extra = good;
  extra["colour"] = "red";
  expect_error(extra, "colour");
  json missing = good;
  missing.erase("io_queue_depth");
  expect_error(missing, "io_queue_depth");
  json negative = good;
  negative["max_read_bytes"] = -1;
  expect_error(negative, "max_read_bytes");
  json text = good;
  text["read_throughput_bytes_per_sec"] = "fast";
  expect_error(text, "read_throughput_bytes_per_sec");
  json bad_type = good;
  bad_type["type"] = "tape";
  expect_error(bad_type, "tape");
  json zero_depth = good;
  zero_depth["io_queue_depth"] = 0;
  expect_error(zero_depth, "queue depth");
  expect_error(json::array(), "object");
}

TEST(DmcJson, ListAndShowDocuments) {
  std::vector<Profile> profiles(builtin_profiles().begin(), builtin_profiles().end());
  profiles.push_back(profiles[0]);
  profiles.back().name = "Mine";
  json list = list_json(profiles, 8, {"bad.toml:3: oops"});
  EXPECT_EQ(keys_of(list), (std::vector<std::string>{"schema_version", "profiles", "warnings"}));
  EXPECT_EQ(list["schema_version"], 1);
  ASSERT_EQ(list["profiles"].size(), 9u);
  EXPECT_EQ(list["profiles"][8]["index"], 8);
  EXPECT_EQ(list["profiles"][8]["builtin"], false);
  EXPECT_EQ(list["profiles"][8]["name"], "Mine");
  EXPECT_EQ(list["profiles"][7]["builtin"], true);
  EXPECT_EQ(list["warnings"][0], "bad.toml:3: oops");

  json show = show_json(7, true, profiles[7]);
  EXPECT_EQ(keys_of(show),
            (std::vector<std::string>{"schema_version", "index", "builtin", "profile"}));
  EXPECT_EQ(keys_of(show["profile"]), kProfileKeys);
  EXPECT_EQ(show["profile"]["name"], "PCIe 3 SSD");
}

TEST(DmcJson, StatusOnHasEveryKeyAndCounters) {
  StatusView view;
  view.mount = "/srv/data";
  view.state = ConditionerState::kOn;
  view.settings = mount::MountSettings{builtin_profiles()[0], mount::CacheMode::kNoCache};
  view.daemon_pid = 4242;
  view.counters = mount::MountCounters{};
  view.counters->commands[1] = 5;
  view.counters->bytes[1] = 20480;
  view.counters->floor_write_ns = 1e6;
  view.diagnostics = mount::MountDiagnostics{};
  view.diagnostics->lateness_replies = 12;
  view.diagnostics->lateness_p99_ns = 250000;
  json j = json::parse(render_json(status_json(view)));
  EXPECT_EQ(keys_of(j), (std::vector<std::string>{
                            "schema_version", "mount", "path", "state", "conditioned",
                            "daemon_alive", "daemon_pid", "settings_source", "profile",
                            "cache_mode", "crashable", "boot", "boot_reapplied", "boot_problem",
                            "counters", "diagnostics", "unconditioned_processes"}));
  EXPECT_EQ(j["crashable"], false);
  EXPECT_EQ(j["path"], "/srv/data");  // the path asked about: the mount itself
  EXPECT_EQ(j["diagnostics"]["lateness_replies"], 12);
  EXPECT_EQ(j["diagnostics"]["lateness_p99_ns"], 250000);
  EXPECT_EQ(j["state"], "on");
  EXPECT_EQ(j["conditioned"], true);
  EXPECT_EQ(j["daemon_alive"], true);
  EXPECT_EQ(j["daemon_pid"], 4242);
  EXPECT_EQ(j["settings_source"], "mount");
  EXPECT_EQ(j["cache_mode"], "no_cache");
  EXPECT_EQ(*mount::profile_from_json(j["profile"]), builtin_profiles()[0]);
  EXPECT_EQ(keys_of(j["counters"]),
            (std::vector<std::string>{
                "read_commands", "read_bytes", "write_commands", "write_bytes", "flush_commands",
                "mean_added_delay_ns", "queue_occupancy_commands", "floor_read_4k_ns",
                "floor_write_4k_ns", "files_placed_from_extents", "files_hashed", "files_linear",
                "metadata_reads", "directory_reads", "written_page_reads", "fault_rules",
                "faults_injected", "stall_active", "stalled_ns"}));
  EXPECT_EQ(j["counters"]["write_commands"], 5);
  EXPECT_EQ(j["counters"]["write_bytes"], 20480);
  EXPECT_DOUBLE_EQ(j["counters"]["floor_write_4k_ns"].get<double>(), 1e6);
}

// Issue 13, item 4: a path inside a conditioned directory reports that directory and says so.
TEST(DmcJson, StatusOfAPathInsideNamesBoth) {
  StatusView view;
  view.mount = "/srv/data";
  view.path = "/srv/data/sub";
  view.state = ConditionerState::kOn;
  view.settings = mount::MountSettings{builtin_profiles()[0], mount::CacheMode::kPageCache};
  json j = status_json(view);
  EXPECT_EQ(j["mount"], "/srv/data");
  EXPECT_EQ(j["path"], "/srv/data/sub");
}

TEST(DmcJson, StatusOffAndStale) {
  StatusView off;
  off.mount = "/srv/data";
  json j = status_json(off);
  EXPECT_EQ(j["state"], "off");
  EXPECT_EQ(j["conditioned"], false);
  EXPECT_TRUE(j["daemon_pid"].is_null());
  EXPECT_EQ(j["settings_source"], "none");
  EXPECT_EQ(j["profile"]["read_throughput_bytes_per_sec"], 0);
  EXPECT_TRUE(j["cache_mode"].is_null());
  EXPECT_TRUE(j["counters"].is_null());
  EXPECT_TRUE(j["diagnostics"].is_null());

  StatusView stale = off;
  stale.state = ConditionerState::kStale;
  stale.daemon_pid = 77;
  j = status_json(stale);
  EXPECT_EQ(j["state"], "stale");
  EXPECT_EQ(j["conditioned"], true);
  EXPECT_EQ(j["daemon_alive"], false);
  EXPECT_EQ(j["daemon_pid"], 77);
}

}  // namespace
}  // namespace diskcond::dmc
