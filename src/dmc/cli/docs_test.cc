// The man page and docs/dmc.md cover every command and every JSON key dmc prints.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "dmc/cli/command_table.h"
#include "dmc/cli/configure_values.h"
#include "dmc/cli/json_format.h"

namespace diskcond::dmc {
namespace {

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(DISKCOND_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void expect_keys_documented(const nlohmann::ordered_json& j, const std::string& doc) {
  for (const auto& [key, value] : j.items()) {
    EXPECT_NE(doc.find("`" + key + "`"), std::string::npos)
        << "docs/dmc.md does not document key " << key;
    if (value.is_object()) expect_keys_documented(value, doc);
  }
}

TEST(DmcDocs, ManPageAndDocsNameEveryCommand) {
  std::string man = read_source_file("man/dmc.1");
  std::string doc = read_source_file("docs/dmc.md");
  ASSERT_FALSE(man.empty());
  ASSERT_FALSE(doc.empty());
  for (const CommandSpec& spec : command_table()) {
    std::string name(spec.name);
    EXPECT_NE(man.find("\\fBdmc " + name + "\\fR"), std::string::npos)
        << name << " missing from SYNOPSIS";
    EXPECT_NE(doc.find("| `" + name), std::string::npos) << name << " missing from docs/dmc.md";
  }
}

// `dmc configure`'s values, which the profile field table orders (configure_values.h), in the same
// order in docs/dmc.md's table of commands and the man page's SYNOPSIS.
TEST(DmcDocs, ConfigureValuesInTheTablesOrder) {
  std::string man = read_source_file("man/dmc.1");
  std::string doc = read_source_file("docs/dmc.md");
  EXPECT_NE(doc.find("| `configure <mount> " + configure_values_synopsis() + "` |"),
            std::string::npos)
      << "docs/dmc.md's configure row is not: configure <mount> " << configure_values_synopsis();
  const size_t start = man.find("\\fBdmc configure\\fR");
  ASSERT_NE(start, std::string::npos);
  const std::string synopsis = man.substr(start, man.find("\\fBdmc ", start + 1) - start);
  std::vector<std::string_view> words = {"type"};
  for (const ProfileField* field : configure_fields()) words.push_back(field->configure_word);
  size_t at = 0;
  for (std::string_view word : words) {
    at = synopsis.find("\\fI" + std::string(word) + "\\fR", at);
    EXPECT_NE(at, std::string::npos) << word << " missing or out of order in dmc.1's SYNOPSIS";
  }
}

TEST(DmcDocs, EveryStatusJsonKeyIsDocumented) {
  std::string doc = read_source_file("docs/dmc.md");
  StatusView view;
  view.mount = "/m";
  view.state = ConditionerState::kOn;
  view.settings = mount::MountSettings{builtin_profiles()[0], mount::CacheMode::kPageCache};
  view.counters = mount::MountCounters{};
  view.diagnostics = mount::MountDiagnostics{};
  expect_keys_documented(status_json(view), doc);
  expect_keys_documented(show_json(0, true, builtin_profiles()[0]), doc);
  auto list = list_json(builtin_profiles(), 8, {});
  expect_keys_documented(list, doc);
  expect_keys_documented(list["profiles"][0], doc);
}

TEST(DmcDocs, ManPageRendersWithoutWarnings) {
  if (std::system("command -v groff >/dev/null 2>&1") != 0) GTEST_SKIP() << "groff not installed";
  std::string cmd =
      std::string("groff -t -man -Tutf8 -ww -z '") + DISKCOND_SOURCE_DIR + "/man/dmc.1' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string output;
  char buf[256];
  while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  EXPECT_EQ(::pclose(p), 0);
  EXPECT_EQ(output, "");
}

}  // namespace
}  // namespace diskcond::dmc
