#include "dmc/cli/text_format.h"

#include <gtest/gtest.h>

#include "core/units.h"
#include "dmc/cli/configure_values.h"

namespace diskcond::dmc {
namespace {

// `dmc show 0`, as in the seed article; status prints the same block.
constexpr const char* kFaultyHddText =
    "Profile: Faulty 5400 HDD\n"
    " Type: HDD\n"
    " Access time: 52222 us\n"
    " Read throughput: 50 MB/s\n"
    " Write throughput: 50 MB/s\n"
    " I/O Queue Depth: 16\n"
    " Max Read Bytes: 16777216\n"
    " Max Write Bytes: 16777216\n"
    " Max Read Segments: 128\n"
    " Max Write Segments: 128\n";

const Profile& builtin(size_t i) {
  return builtin_profiles()[i];
}

// /srv/data conditioned with profile 0.
StatusView on_with_profile_0(mount::CacheMode cache) {
  StatusView view;
  view.mount = "/srv/data";
  view.state = ConditionerState::kOn;
  view.settings = mount::MountSettings{builtin(0), cache};
  return view;
}

TEST(DmcTextFormat, ListMatchesMacOS) {
  EXPECT_EQ(format_profile_list(builtin_profiles()),
            "  0: Faulty 5400 HDD\n"
            "  1: 5400 HDD\n"
            "  2: 7200 HDD\n"
            "  3: Slow SSD\n"
            "  4: SATA II SSD\n"
            "  5: SATA III SSD\n"
            "  6: PCIe 2 SSD\n"
            "  7: PCIe 3 SSD\n");
}

TEST(DmcTextFormat, ListAlignsTwoDigitIndices) {
  std::vector<Profile> many(11, builtin(0));
  many[10].name = "Mine";
  EXPECT_EQ(format_profile_list(many).substr(10 * 21), " 10: Mine\n");
}

TEST(DmcTextFormat, ShowMatchesTheSeedArticle) {
  EXPECT_EQ(format_profile(builtin(0)), kFaultyHddText);
  EXPECT_EQ(format_profile(builtin(7)),
            "Profile: PCIe 3 SSD\n"
            " Type: SSD\n"
            " Access time: 3 us\n"
            " Read throughput: 3072 MB/s\n"
            " Write throughput: 2560 MB/s\n"
            " I/O Queue Depth: 256\n"
            " Max Read Bytes: 67108864\n"
            " Max Write Bytes: 67108864\n"
            " Max Read Segments: 256\n"
            " Max Write Segments: 256\n");
  EXPECT_EQ(format_profile(builtin(3)),
            "Profile: Slow SSD\n"
            " Type: SSD\n"
            " Access time: 100 us\n"
            " Read throughput: 250 MB/s\n"
            " Write throughput: 125 MB/s\n"
            " I/O Queue Depth: 32\n"
            " Max Read Bytes: 33554432\n"
            " Max Write Bytes: 33554432\n"
            " Max Read Segments: 64\n"
            " Max Write Segments: 64\n");
}

TEST(DmcTextFormat, UnlimitedThroughputAndFractionalAccessTime) {
  Profile p = type_defaults(DiskType::kSSD);
  p.access_time_ns = 1500;
  p.write_bytes_per_sec = 3 * kMiB / 2;
  std::string fields = profile_field_lines(p);
  EXPECT_NE(fields.find(" Access time: 1.5 us\n"), std::string::npos) << fields;
  EXPECT_NE(fields.find(" Read throughput: 0 MB/s (unlimited)\n"), std::string::npos) << fields;
  EXPECT_NE(fields.find(" Write throughput: 1.5 MB/s\n"), std::string::npos) << fields;
}

TEST(DmcTextFormat, SpinUpLineOnlyForProfilesWithSpinUp) {
  Profile p = builtin(0);
  EXPECT_EQ(profile_field_lines(p).find("Spin-up"), std::string::npos);
  p.spinup_ns = 8 * kNsPerSec;
  p.spinup_idle_ns = 600 * kNsPerSec;
  EXPECT_NE(profile_field_lines(p).find(" Spin-up: 8.00 s after 600.00 s idle\n"),
            std::string::npos);
}

TEST(DmcTextFormat, StatusOffWithNothingStoredShowsZeros) {
  StatusView view;
  view.mount = "/srv/data";
  EXPECT_EQ(format_status(view),
            "Disk Mount Conditioner: OFF\n"
            "Profile: None\n"
            " Type: SSD\n"
            " Access time: 0 us\n"
            " Read throughput: 0 MB/s (unlimited)\n"
            " Write throughput: 0 MB/s (unlimited)\n"
            " I/O Queue Depth: 0\n"
            " Max Read Bytes: 0\n"
            " Max Write Bytes: 0\n"
            " Max Read Segments: 0\n"
            " Max Write Segments: 0\n"
            "Mount: /srv/data\n");
}

TEST(DmcTextFormat, StatusOnShowsFieldsThenLiveCounters) {
  StatusView view = on_with_profile_0(mount::CacheMode::kNoCache);
  view.daemon_pid = 4242;
  view.boot = true;
  mount::MountCounters c;
  c.commands[0] = 120;
  c.bytes[0] = 503316480;
  c.commands[1] = 3;
  c.bytes[1] = 12288;
  c.commands[2] = 1;
  c.mean_added_delay_ns = 52.1e6;
  c.queue_occupancy = 3;
  c.floor_read_ns = 31.5e6;
  c.files_mapped = 7;
  c.files_linear = 1;
  c.metadata_reads = 2;
  c.directory_reads = 4;
  c.written_page_reads = 1;
  view.counters = c;
  EXPECT_EQ(format_status(view),
            std::string("Disk Mount Conditioner: ON\n") + kFaultyHddText +
                "Mount: /srv/data\n"
                "Daemon: pid 4242\n"
                "Cache: none (every read and write is conditioned)\n"
                "Crashable: no (started without -crashable)\n"
                "Boot: re-applied at boot by dmc-boot.service\n"
                "Served since start:\n"
                " Reads: 120 commands, 503316480 bytes\n"
                " Writes: 3 commands, 12288 bytes\n"
                " Flushes: 1 command\n"
                " Mean added delay: 52.1 ms\n"
                " Queue occupancy: 3 commands\n"
                " Fastest 4 KiB read service: 31.5 ms\n"
                " Fastest 4 KiB write service: none yet\n"
                " Placement: 7 files from the backing file's extents (FIEMAP), 1 file linear "
                "(O_DIRECT), 0 files hashed\n"
                " Metadata reads: 2 inode-table reads, 4 directory reads\n"
                " Written pages read back from the page cache: 1 page\n"
                " Fault rules: 0 live, 0 faults injected (dmc fault list)\n");
}

TEST(DmcTextFormat, StatusSaysWhenTheDeviceIsStalled) {
  StatusView view = on_with_profile_0(mount::CacheMode::kNoCache);
  view.daemon_pid = 4242;
  mount::MountCounters c;
  c.fault_rules = 1;
  c.faults_injected = 2;
  c.stall_active = 1;
  c.stalled_ns = 1'250'000'000;
  view.counters = c;
  const std::string text = format_status(view);
  EXPECT_NE(text.find(" Fault rules: 1 live, 2 faults injected (dmc fault list)\n"
                      " Stalls: STALLED now, 1.250 s stalled since start\n"),
            std::string::npos)
      << text;
  view.counters->stall_active = 0;
  EXPECT_NE(format_status(view).find(" Stalls: none now, 1.250 s stalled since start\n"),
            std::string::npos);
}

// Issue 13, item 8: one command is singular, in every counter.
TEST(DmcTextFormat, CountersOfOneAreSingular) {
  StatusView view = on_with_profile_0(mount::CacheMode::kPageCache);
  mount::MountCounters c;
  c.commands[0] = c.commands[1] = c.commands[2] = 1;
  c.bytes[0] = 1;
  c.queue_occupancy = 1;
  view.counters = c;
  std::string text = format_status(view);
  EXPECT_NE(
      text.find(" Reads: 1 command, 1 byte\n Writes: 1 command, 0 bytes\n Flushes: 1 command\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(" Queue occupancy: 1 command\n"), std::string::npos) << text;
}

// Issue 13, item 4: a path inside a conditioned directory reports that directory and says so.
TEST(DmcTextFormat, StatusOfAPathInsideNamesTheConditionedDirectory) {
  StatusView view = on_with_profile_0(mount::CacheMode::kPageCache);
  view.path = "/srv/data/sub";
  view.daemon_pid = 4242;
  std::string text = format_status(view);
  EXPECT_NE(text.find("Mount: /srv/data\n/srv/data/sub is inside the conditioned directory "
                      "/srv/data\nDaemon: pid"),
            std::string::npos)
      << text;
  view.path = view.mount;
  EXPECT_EQ(format_status(view).find("is inside"), std::string::npos);
  view.state = ConditionerState::kStale;
  view.path = "/srv/data/sub";
  EXPECT_NE(format_status(view).find(
                "STALE\n/srv/data/sub is inside the conditioned directory /srv/data\n"),
            std::string::npos);
}

TEST(DmcTextFormat, StatusOffWithStoredSettingsSaysStartAppliesThem) {
  StatusView view;
  view.mount = "/srv/data";
  view.settings = mount::MountSettings{type_defaults(DiskType::kHDD), mount::CacheMode::kPageCache};
  std::string text = format_status(view);
  EXPECT_EQ(text.rfind("Disk Mount Conditioner: OFF\nProfile: Custom\n Type: HDD\n", 0), 0u)
      << text;
  EXPECT_NE(text.find("Stored settings: applied by 'dmc start /srv/data'\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Cache: page cache, write-through (cache hits are not conditioned)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Boot: not kept across reboots\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("Served since start"), std::string::npos) << text;
}

TEST(DmcTextFormat, StaleStatusNamesTheFix) {
  StatusView view;
  view.mount = "/srv/data";
  view.state = ConditionerState::kStale;
  view.daemon_pid = 77;
  std::string text = format_status(view);
  EXPECT_EQ(text.substr(0, 30), "Disk Mount Conditioner: STALE\n");
  EXPECT_NE(text.find("(pid 77 is gone)"), std::string::npos) << text;
  EXPECT_NE(text.find("sudo dmc stop /srv/data"), std::string::npos) << text;
}

TEST(DmcTextFormat, Durations) {
  EXPECT_EQ(format_duration(850), "850 ns");
  EXPECT_EQ(format_duration(12500), "12.5 us");
  EXPECT_EQ(format_duration(52.1e6), "52.1 ms");
  EXPECT_EQ(format_duration(8e9), "8.00 s");
}

}  // namespace
}  // namespace diskcond::dmc
