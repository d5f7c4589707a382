// Every way of asking dmc and rawio for help, for every command: exit 0, the text on stdout,
// nothing on stderr, and nothing changed (help is answered before anything else is looked at).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dmc/cli/command_table.h"
#include "tools/bad_input_harness.h"

namespace diskcond::tools {
namespace {

class HelpTest : public ::testing::Test {
 protected:
  void SetUp() override { world_.freeze(); }

  ProgramRun run(const std::string& binary, const std::vector<std::string>& args) {
    return run_program(
        binary, args,
        {"DISKCOND_STATE_DIR=" + world_.path("state"),
         "DISKCOND_PROFILE_DIR=" + world_.path("profiles"), "PATH=/usr/bin:/bin", "LC_ALL=C",
         "HOME=" + world_.path("home"), "XDG_DATA_HOME=" + world_.path("xdg")},
        world_.path(""), world_.io_dir());
  }

  // Checks that `args` prints help containing `expected` and nothing else happens.
  void expect_help(const std::string& tool, const std::vector<std::string>& args,
                   const std::string& expected) {
    ProgramRun r = run(tool == "dmc" ? DMC_BINARY : RAWIO_BINARY, args);
    const std::string name = tool + " " + shown_words(args);
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find(expected), std::string::npos)
        << name << " does not mention '" << expected << "':\n"
        << r.out;
    EXPECT_EQ(r.err, "") << name;
    world_.expect_unchanged(name);
  }

  SweepWorld world_{"help_test"};
};

TEST_F(HelpTest, DmcHelpForTheToolAndEveryCommand) {
  for (const char* word : {"help", "-h", "-help", "--help"})
    expect_help("dmc", {word}, "usage: dmc <commands...>");
  size_t commands = 0;
  for (const dmc::CommandSpec& spec : dmc::command_table()) {
    const std::string name(spec.name);
    const std::string usage = "dmc " + std::string(spec.synopsis);
    for (const char* word : {"help", "-h", "-help", "--help"})
      expect_help("dmc", {word, name}, usage);
    for (const char* word : {"-h", "-help", "--help"}) {
      expect_help("dmc", {name, word}, usage);
      // Help wins over whatever else is on the line, bad words included.
      expect_help("dmc", {name, "/no/such/dir", "99", word}, usage);
    }
    ++commands;
  }
  EXPECT_EQ(commands, 15u);
  expect_help("dmc", {"--version"}, "dmc (diskcond) ");
}

TEST_F(HelpTest, RawioHelpForRunsAndReports) {
  for (const char* word : {"-h", "--help"}) {
    expect_help("rawio", {word}, "--transfer-size");
    expect_help("rawio", {"-a", "-n", "bogus", word}, "--transfer-size");
    expect_help("rawio", {"report", word}, "--last");
    expect_help("rawio", {"report", "--last", "0", word}, "--last");
  }
  expect_help("rawio", {"--version"}, "rawio (diskcond) ");
}

}  // namespace
}  // namespace diskcond::tools
