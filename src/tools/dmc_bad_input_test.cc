// Issue 6, bad and hostile input, for dmc: every command, every argument slot and every option,
// run through the built binary (DMC_BINARY) with bad words generated from one table. Each case
// must exit with its class's code, say one line on stderr, print nothing on stdout (also with
// -json) and change nothing: not the settings store, not the directories, not the mounts.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tools/bad_input_harness.h"

namespace diskcond::tools {
namespace {

// What an argument slot of a command holds; each kind has its own bad words.
enum class Slot {
  kMount,
  kProfile,
  kType,
  kTime,
  kRate,
  kDepth,
  kCommandBytes,
  kSegments,
  kImage,
  kDiskSize,
  kDiskTarget
};

struct CommandShape {
  std::string name;                  // the command's words: "start", "disk create"
  std::vector<Slot> slots;           // the positional arguments, in order
  size_t required = 0;               // how many of them must be given
  std::vector<std::string> options;  // the options it takes, without the dash
};

// dmc's commands as docs/dmc.md describes them. `boot` takes nothing.
const std::vector<CommandShape>& command_shapes() {
  static const std::vector<CommandShape> shapes = {
      {"start", {Slot::kMount, Slot::kProfile}, 1, {"boot", "nocache", "force"}},
      {"stop", {Slot::kMount}, 1, {"force"}},
      {"status", {Slot::kMount}, 1, {"json"}},
      {"show", {Slot::kProfile}, 1, {"json"}},
      {"list", {}, 0, {"json"}},
      {"predict", {Slot::kProfile}, 0, {"json"}},
      {"select", {Slot::kMount, Slot::kProfile}, 2, {}},
      {"configure",
       {Slot::kMount, Slot::kType, Slot::kTime, Slot::kRate, Slot::kRate, Slot::kDepth,
        Slot::kCommandBytes, Slot::kCommandBytes, Slot::kSegments, Slot::kSegments},
       5,
       {}},
      {"boot", {}, 0, {}},
      {"verify", {Slot::kMount}, 1, {"json", "quick"}},
      {"disk create",
       {Slot::kImage, Slot::kDiskSize, Slot::kProfile},
       2,
       {"json", "start", "existing", "mkfs", "mount"}},
      {"disk remove", {Slot::kDiskTarget}, 1, {"delete"}},
      {"disk list", {}, 0, {"json"}},
  };
  return shapes;
}

const std::vector<std::string> kEveryOption = {"boot",  "nocache",  "force",  "json", "quick",
                                               "start", "existing", "delete", "mkfs", "mount"};

class DmcBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    fs::create_directories(world_.path("profiles"));
    fs::create_directories(world_.path("dir"));
    fs::create_directories(world_.path("stored"));
    std::ofstream(world_.path("dir/keep")) << "left alone\n";
    std::ofstream(world_.path("file")) << "a file, not a directory\n";
    std::ofstream(world_.path("profiles/lab.toml"))
        << "name = \"Lab Disk\"\ntype = \"SSD\"\naccess_time = 40\nread_throughput = "
           "400\nwrite_throughput = 300\n";
    fs::create_symlink(world_.path("nowhere"), world_.path("dangling"));
    fs::create_symlink(world_.path("file"), world_.path("link-to-file"));
    // A stored record (no mount needed), so the store has contents a bad command could spoil.
    ProgramRun stored = dmc({"configure", world_.path("stored"), "HDD", "12ms", "80", "60"});
    ASSERT_EQ(stored.code, 0) << stored.err;
    ASSERT_TRUE(fs::exists(world_.path("state/mounts/.lock")));
    world_.freeze();
  }
  void TearDown() override {
    if (!mounted_.empty()) dmc({"stop", mounted_, "-force"});  // however the test ended
    RecordProperty("cases", cases_);                           // in --gtest_output=xml
  }

  // Conditions `dir` with profile 7 (fast: the world's fingerprint reads through it quickly);
  // TearDown stops it.
  void start_fast_mount(const std::string& dir) {
    ProgramRun started = dmc({"start", dir, "7"});
    ASSERT_EQ(started.code, 0) << started.err;
    mounted_ = dir;
  }

  ProgramRun dmc(const std::vector<std::string>& args, std::optional<uid_t> uid = std::nullopt) {
    return run_program(DMC_BINARY, args,
                       {"DISKCOND_STATE_DIR=" + world_.path("state"),
                        "DISKCOND_PROFILE_DIR=" + world_.path("profiles"), "PATH=/usr/bin:/bin",
                        "LC_ALL=C", "HOME=" + world_.path("home")},
                       world_.path(""), world_.io_dir(), uid);
  }

  // Runs `dmc <args>` and checks it is rejected with `code`, one line and no change.
  void expect_rejected_case(const std::vector<std::string>& args, int code,
                            std::optional<uid_t> uid = std::nullopt) {
    ProgramRun run = dmc(args, uid);
    expect_rejected("dmc", args, code, run);
    world_.expect_unchanged("dmc " + shown_words(args));
    ++cases_;
  }

  // A good word for each slot: the commands would succeed with these (start would mount).
  std::string good_word(Slot slot, size_t position) const {
    static const char* kConfigureGood[] = {"",   "SSD", "100us", "200", "100",
                                           "32", "1m",  "1m",    "128", "128"};
    switch (slot) {
      case Slot::kMount:
        return world_.path("dir");
      case Slot::kProfile:
        return "0";
      case Slot::kImage:
        return world_.path("dir/disk.img");  // not conditioned: the line is refused with 4
      case Slot::kDiskSize:
        return "64m";
      case Slot::kDiskTarget:
        return world_.path("file");  // not attached: refused with 4
      default:
        return kConfigureGood[position];
    }
  }

  std::vector<std::string> bad_words(Slot slot) const {
    switch (slot) {
      case Slot::kMount:
        return {world_.path("missing"),     world_.path("file"),          "",
                world_.path("dangling"),    world_.path("link-to-file"),  world_.path("file/sub"),
                world_.path("missing/sub"), "/" + std::string(5000, 'a'), world_.path("new\nline"),
                world_.path("tab\there")};
      case Slot::kProfile:
        return {"9",
                "99",
                "-1",
                "1.5",
                "",
                " ",
                "0x1",
                "+1",
                "1e3",
                "18446744073709551616",
                "No Such Disk",
                "0 ",
                "Slow  SSD",
                "Lab",
                "a\nb",
                "\x1b[2J"};
      case Slot::kType:
        return {"", "ssd2", "NVMe", "0", "S SD", "SSD\n"};
      case Slot::kTime:
        return {"-1",  "",         "61s", "1y", "1.5.2", "abc", "99999999999999999999",
                "1e3", "0.0001ns", "ms",  "-0"};
      case Slot::kRate:
        return {"-2",   "",   "2000000", "2TB/s", "5 MB", "x", "0.1B/s", "99999999999999999999",
                "2s/s", "1e2"};
      case Slot::kDepth:
        return {"0", "65537", "-1", "1.5", "", "x", "99999999999999999999", "+4", "0x10"};
      case Slot::kCommandBytes:
        return {"100", "2t", "-1", "1.5", "", "1x", "99999999999999999999", "511"};
      case Slot::kSegments:
        return {"65537", "-1", "1.5", "", "x", "+1", "99999999999999999999"};
      case Slot::kImage:
        return {"",
                world_.path("missing/x.img"),
                world_.path("file/x.img"),
                world_.path("dir"),
                world_.path("dir/"),
                world_.path("dangling"),
                "/" + std::string(5000, 'a'),
                world_.path("new\nline/x.img")};
      case Slot::kDiskSize:
        return {"0",   "-1", "", "x", "1.5", "4095", "1000k", "512k", "17t", "99999999999999999999",
                "1e3", "64x"};
      case Slot::kDiskTarget:
        return {"", world_.path("missing"), world_.path("file/sub"), "/" + std::string(5000, 'a'),
                world_.path("tab\there")};
    }
    return {};
  }

  std::vector<std::string> good_words(const CommandShape& shape) const {
    std::vector<std::string> words;
    for (size_t i = 0; i < shape.slots.size(); ++i) words.push_back(good_word(shape.slots[i], i));
    return words;
  }

  SweepWorld world_{"dmc_bad_input"};
  int cases_ = 0;
  std::string mounted_;  // a directory start_fast_mount conditioned
};

// The command's words (one, or two for "disk create"), then `words`.
std::vector<std::string> with(const std::string& command, std::vector<std::string> words) {
  std::vector<std::string> line;
  for (size_t start = 0, space; start <= command.size(); start = space + 1) {
    space = command.find(' ', start);
    if (space == std::string::npos) space = command.size();
    line.push_back(command.substr(start, space - start));
  }
  line.insert(line.end(), words.begin(), words.end());
  return line;
}

bool takes_json(const CommandShape& shape) {
  return std::find(shape.options.begin(), shape.options.end(), "json") != shape.options.end();
}

// The cases below change one word of a good command line; this checks that the good lines are
// good, so a case is rejected for its bad word and not for a bad neighbour. (start, stop and
// verify need a mount: the mount tests at the end run them.)
TEST_F(DmcBadInput, TheGoodWordsTheCasesStartFromAreAccepted) {
  for (const CommandShape& shape : command_shapes()) {
    if (shape.name == "start" || shape.name == "stop" || shape.name == "verify") continue;
    if (shape.name.rfind("disk ", 0) == 0 && shape.name != "disk list")
      continue;  // need a conditioned directory
    std::vector<std::string> args = with(shape.name, good_words(shape));
    ProgramRun run = dmc(args);
    EXPECT_EQ(run.code, 0) << "dmc " << shown_words(args) << ": " << run.err;
  }
}

TEST_F(DmcBadInput, BadWordsInEverySlotOfEveryCommandAreRejected) {
  for (const CommandShape& shape : command_shapes()) {
    const std::vector<std::string> good = good_words(shape);
    for (size_t slot = 0; slot < shape.slots.size(); ++slot) {
      for (const std::string& bad : bad_words(shape.slots[slot])) {
        std::vector<std::string> words = good;
        words[slot] = bad;
        expect_rejected_case(with(shape.name, words), 2);
        if (!takes_json(shape)) continue;
        // The JSON variants: the error is the same one line on stderr and stdout stays empty.
        std::vector<std::string> json = words;
        json.push_back("-json");
        expect_rejected_case(with(shape.name, json), 2);
        json = words;
        json.insert(json.begin(), "--json");
        expect_rejected_case(with(shape.name, json), 2);
      }
    }
  }
  EXPECT_GT(cases_, 250);
}

TEST_F(DmcBadInput, MissingAndExtraArgumentsAreRejected) {
  for (const CommandShape& shape : command_shapes()) {
    const std::vector<std::string> good = good_words(shape);
    for (size_t given = 0; given < shape.required; ++given) {
      expect_rejected_case(
          with(shape.name, {good.begin(), good.begin() + static_cast<ptrdiff_t>(given)}), 2);
    }
    for (const char* extra : {"extra", "0", "", "-", "--"}) {
      std::vector<std::string> words = good;
      words.push_back(extra);
      if (std::string(extra) == "--") words.push_back("more");
      expect_rejected_case(with(shape.name, words), 2);
    }
  }
}

TEST_F(DmcBadInput, UnknownDuplicatedAndMisspelledOptionsAreRejected) {
  for (const CommandShape& shape : command_shapes()) {
    const std::vector<std::string> good = good_words(shape);
    std::vector<std::string> unknown = {"-bogus", "--bogus", "-JSON",      "---json",
                                        "-j",     "-json=1", "--json=yes", "-x-"};
    for (const std::string& option : kEveryOption) {
      if (std::find(shape.options.begin(), shape.options.end(), option) == shape.options.end()) {
        unknown.push_back("-" + option);
      }
    }
    for (const std::string& option : unknown) {
      std::vector<std::string> words = good;
      words.push_back(option);
      expect_rejected_case(with(shape.name, words), 2);
    }
    for (const std::string& option : shape.options) {
      std::vector<std::string> words = good;
      words.push_back("-" + option);
      words.push_back("--" + option);
      expect_rejected_case(with(shape.name, words), 2);
    }
  }
}

TEST_F(DmcBadInput, BadTopLevelWordsAreRejected) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {""},
      {"bogus"},
      {"START"},
      {"-json"},
      {"--"},
      {"-"},
      {"help", "bogus"},
      {"help", "start", "x"},
      {"-h", "bogus"},
      {"--help", "start", "stop"},
      {"--version", "x"},
      {"-version", "-json"},
      {"--bogus"},
      {"disk"},
      {"disk", "bogus"},
      {"disk", "CREATE"},
      {"disk", ""},
      {"disk", "-json"},
      {"disk", "list", "-start"},
      {"disk", "remove", "-json"},
      {"help", "disk", "create"},
  };
  for (const auto& args : cases) expect_rejected_case(args, 2);
}

TEST_F(DmcBadInput, WrongStateIsExitFourAndChangesNothing) {
  const std::string dir = world_.path("dir"), stored = world_.path("stored");
  const std::vector<std::vector<std::string>> cases = {
      {"start", dir},  // nothing stored, no profile named
      {"start", dir, "-nocache"},
      {"stop", dir},  // not conditioned
      {"stop", dir, "-force"},
      {"stop", stored},  // settings stored, but not conditioned
      {"verify", dir},
      {"verify", dir, "-json"},
      {"verify", stored, "-quick", "--json"},
      {"disk", "create", dir + "/x.img", "64m"},  // not in a conditioned directory
      {"disk", "create", dir + "/x.img", "64m", "-json", "-mkfs", "ext4"},
      {"disk", "create", dir + "/x.img", "64m", "-start"},    // nothing stored for dir, no profile
      {"disk", "create", dir + "/keep", "64m"},               // exists
      {"disk", "create", dir + "/keep", "64m", "-existing"},  // not 64 MiB
      {"disk", "create", dir + "/none.img", "64m", "-existing"},
      {"disk", "remove", world_.path("file")},  // not attached
      {"disk", "remove", dir, "-delete"},       // no disk mounted there
  };
  for (const auto& args : cases) expect_rejected_case(args, 4);
}

TEST_F(DmcBadInput, ChangingCommandsNeedRootAndReadingOnesStillCheckTheirInput) {
  const uid_t nobody = 65534;
  const std::string dir = world_.path("dir");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"start", dir, "0"},
           {"stop", dir},
           {"select", dir, "1"},
           {"configure", dir, "SSD", "1", "2", "3"},
           {"boot"},
           {"disk", "create", dir + "/x.img", "64m", "0", "-start"},
           {"disk", "remove", world_.path("file"), "-delete"}}) {
    expect_rejected_case(args, 3, nobody);
  }
  for (const auto& args : std::vector<std::vector<std::string>>{{"show", "99"},
                                                                {"list", "-boot"},
                                                                {"status", world_.path("missing")},
                                                                {"predict", "x", "-json"},
                                                                {"disk", "list", "-delete"},
                                                                {"disk", "list", "x"}}) {
    expect_rejected_case(args, 2, nobody);
  }
}

// The one real mount of the sweep: bad input aimed at a conditioned directory must leave the
// mount and its live settings as they were. Profile 7 is fast, so the world's fingerprint reads
// through the mount quickly.
TEST_F(DmcBadInput, AConditionedMountKeepsItsSettings) {
  const std::string dir = world_.path("dir");
  ASSERT_NO_FATAL_FAILURE(start_fast_mount(dir));
  auto live_settings = [&] {
    ProgramRun status = dmc({"status", dir, "-json"});
    EXPECT_EQ(status.code, 0) << status.err;
    auto doc = nlohmann::json::parse(status.out, nullptr, /*allow_exceptions=*/false);
    // Reading the world's fingerprint through the mount moves these; they are not settings.
    doc.erase("counters");
    doc.erase("diagnostics");
    return doc.dump();
  };
  const std::string before = live_settings();
  ASSERT_NE(before.find("PCIe 3 SSD"), std::string::npos) << before;
  world_.freeze();
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"start", dir, "1"}, 4},  // already conditioned
      {{"start", dir}, 4},
      {{"start", dir, "99"}, 2},
      {{"select", dir, "99"}, 2},
      {{"select", dir, ""}, 2},
      {{"select", dir, "1", "-boot"}, 2},
      {{"configure", dir, "SSD", "x", "1", "2"}, 2},
      {{"configure", dir, "SSD", "1", "2", "3", "0"}, 2},
      {{"stop", dir, "now"}, 2},
      {{"stop", dir, "-force", "-force"}, 2},
      {{"status", dir, "-json", "-json"}, 2},
      {{"verify", dir, "extra", "-json"}, 2},
      {{"verify", dir, "-quick", "-quick"}, 2},
      {{"disk", "create", dir + "/x.img", "64m", "1"}, 4},  // the directory is profile 7
      {{"disk", "create", dir + "/keep", "64m"}, 4},
      {{"disk", "create", dir + "/x.img", "64m", "-mkfs", "xfs"}, 2},
      {{"disk", "create", dir + "/x.img", "1000"}, 2},
      {{"disk", "create", dir + "/x.img", "64m", "-mount", world_.path("missing")}, 2},
      {{"disk", "remove", dir + "/keep"}, 4},
  };
  for (const auto& [args, code] : cases) {
    expect_rejected_case(args, code);
    EXPECT_EQ(live_settings(), before)
        << "dmc " << shown_words(args) << " changed the live settings";
  }
}

// A mount whose daemon died: commands that would change it exit 5 and point at 'dmc stop', bad
// values are still usage errors, and nothing changes until 'dmc stop' clears it.
TEST_F(DmcBadInput, AStaleMountIsExitFiveAndChangesNothing) {
  const std::string dir = world_.path("dir");
  ASSERT_NO_FATAL_FAILURE(start_fast_mount(dir));
  ProgramRun status = dmc({"status", dir, "-json"});
  auto doc = nlohmann::json::parse(status.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(doc.contains("daemon_pid") && doc["daemon_pid"].is_number_integer()) << status.out;
  ASSERT_EQ(::kill(doc["daemon_pid"].get<pid_t>(), SIGKILL), 0);  // the daemon this test started
  for (int i = 0; i < 200 && dmc({"status", dir}).code != 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  world_.freeze();
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"start", dir, "1"}, 5},
      {{"start", dir}, 5},
      {{"select", dir, "1"}, 5},
      {{"configure", dir, "SSD", "1", "2", "3"}, 5},
      {{"verify", dir, "-json"}, 5},
      {{"select", dir, "99"}, 2},
      {{"configure", dir, "SSD", "-1", "2", "3"}, 2},
      {{"stop", dir, "-force", "extra"}, 2},
  };
  for (const auto& [args, code] : cases) expect_rejected_case(args, code);
  ProgramRun stopped = dmc({"stop", dir});
  EXPECT_EQ(stopped.code, 0) << stopped.err;
}

}  // namespace
}  // namespace diskcond::tools
