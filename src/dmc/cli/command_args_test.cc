#include "dmc/cli/command_args.h"

#include <gtest/gtest.h>

namespace diskcond::dmc {
namespace {

const ArgGrammar kStart{"start", 1, 2, {"boot", "nocache"}, {"<mount>"}};

Result<CommandArgs> split(std::vector<std::string> words) {
  return split_command_args(kStart, words);
}

TEST(DmcCommandArgs, SeparatesPositionalsAndOptionsAnywhere) {
  auto a = split({"-nocache", "/srv", "0", "-boot"});
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->positional, (std::vector<std::string>{"/srv", "0"}));
  EXPECT_TRUE(a->has("boot"));
  EXPECT_TRUE(a->has("nocache"));
  EXPECT_FALSE(a->help);
}

TEST(DmcCommandArgs, DoubleDashOptionsAreAcceptedButNotRepeats) {
  auto a = split({"/srv", "--boot"});
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->options, (std::vector<std::string>{"boot"}));
  EXPECT_FALSE(split({"/srv", "--boot", "-boot"})
                   .ok());  // which one counts is not the question: it is a slip
}

TEST(DmcCommandArgs, NegativeNumbersAreValuesNotOptions) {
  auto a = split({"/srv", "-5"});
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->positional[1], "-5");
}

TEST(DmcCommandArgs, DoubleDashEndsOptions) {
  auto a = split({"--", "-odd-dir"});
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->positional, (std::vector<std::string>{"-odd-dir"}));
}

TEST(DmcCommandArgs, HelpWinsOverEverythingElse) {
  for (const char* h : {"-h", "-help", "--help"}) {
    auto a = split({"-bogus", h});
    ASSERT_FALSE(a.ok());  // the bad option comes first
    a = split({h, "-bogus", "x", "y", "z"});
    ASSERT_TRUE(a.ok()) << h;
    EXPECT_TRUE(a->help);
  }
}

TEST(DmcCommandArgs, ErrorsNameTheWordAndTheCommand) {
  auto unknown = split({"/srv", "-json"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error(), "unknown option '-json' for 'dmc start' (see 'dmc start --help')");
  auto missing = split({});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "missing <mount> for 'dmc start' (see 'dmc start --help')");
  auto extra = split({"/srv", "0", "1"});
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.error(), "unexpected argument '1' for 'dmc start' (see 'dmc start --help')");
  auto twice = split({"/srv", "0", "-boot", "--boot"});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error(), "option '--boot' given twice for 'dmc start' (see 'dmc start --help')");
}

const ArgGrammar kValued{"disk", 1, 2, {"json"}, {"<image>"}, {"mkfs", "mount"}};

TEST(DmcCommandArgs, ValueOptionsTakeTheNextWord) {
  std::vector<std::string> words = {"-mkfs", "ext4", "/img", "--mount", "-5", "-json"};
  auto a = split_command_args(kValued, words);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->positional, (std::vector<std::string>{"/img"}));
  ASSERT_NE(a->value("mkfs"), nullptr);
  EXPECT_EQ(*a->value("mkfs"), "ext4");
  ASSERT_NE(a->value("mount"), nullptr);
  EXPECT_EQ(*a->value("mount"), "-5");  // value-shaped, like a negative number
  EXPECT_TRUE(a->has("json"));
  EXPECT_EQ(a->value("bogus"), nullptr);
}

TEST(DmcCommandArgs, AValueOptionWithoutItsValueOrTwiceIsAnError) {
  for (std::vector<std::string> words : std::vector<std::vector<std::string>>{
           {"/img", "-mkfs"}, {"/img", "-mkfs", "-json"}, {"/img", "-mkfs", "--"}}) {
    auto a = split_command_args(kValued, words);
    ASSERT_FALSE(a.ok()) << words.back();
    EXPECT_EQ(a.error(), "option '-mkfs' needs a value for 'dmc disk' (see 'dmc disk --help')");
  }
  std::vector<std::string> twice = {"/img", "-mkfs", "ext4", "--mkfs", "ext4"};
  auto a = split_command_args(kValued, twice);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error(), "option '--mkfs' given twice for 'dmc disk' (see 'dmc disk --help')");
  std::vector<std::string> help = {"/img", "-mount", "--help"};
  EXPECT_TRUE(split_command_args(kValued, help)->help);
}

const ArgGrammar kRun{"run", 2, 2, {"writethrough", "nocache"}, {"<dir>", "profile"}, {}, true};

TEST(DmcCommandArgs, ATrailingCommandIsEverythingAfterTheFirstDoubleDash) {
  auto a = split_command_args(kRun, std::vector<std::string>{"-nocache", "/srv", "0", "--", "sh",
                                                             "-c", "ls --help", "--", "-nocache"});
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->positional, (std::vector<std::string>{"/srv", "0"}));
  EXPECT_TRUE(a->has("nocache"));
  EXPECT_EQ(a->command, (std::vector<std::string>{"sh", "-c", "ls --help", "--", "-nocache"}));
  EXPECT_FALSE(a->help);
  auto help_of_the_command =
      split_command_args(kRun, std::vector<std::string>{"/srv", "0", "--", "ls", "--help"});
  ASSERT_TRUE(help_of_the_command.ok()) << help_of_the_command.error();
  EXPECT_FALSE(help_of_the_command->help);
  auto help = split_command_args(kRun, std::vector<std::string>{"/srv", "--help"});
  ASSERT_TRUE(help.ok()) << help.error();
  EXPECT_TRUE(help->help);
}

TEST(DmcCommandArgs, ATrailingCommandIsRequiredWithItsDoubleDash) {
  auto error_of = [](std::vector<std::string> words) {
    auto a = split_command_args(kRun, words);
    return a.ok() ? std::string("accepted") : a.error();
  };
  EXPECT_EQ(error_of({"/srv", "0", "ls"}),
            "missing '-- <command>' for 'dmc run' (see 'dmc run --help')");
  EXPECT_EQ(error_of({"/srv", "0"}), "missing '-- <command>' for 'dmc run' (see 'dmc run --help')");
  EXPECT_EQ(error_of({"/srv", "0", "--"}),
            "missing <command> after '--' for 'dmc run' (see 'dmc run --help')");
  EXPECT_EQ(error_of({"/srv", "--", "ls"}), "missing profile for 'dmc run' (see 'dmc run --help')");
  EXPECT_EQ(error_of({"/srv", "0", "1", "--", "ls"}),
            "unexpected argument '1' for 'dmc run' (see 'dmc run --help')");
  EXPECT_EQ(error_of({"/srv", "0", "-json", "--", "ls"}),
            "unknown option '-json' for 'dmc run' (see 'dmc run --help')");
}

}  // namespace
}  // namespace diskcond::dmc
