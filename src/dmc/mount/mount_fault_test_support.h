// What the mount tests of fault rules share: a rule from its words, and whole-file helpers.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/fault_rules.h"

namespace diskcond::mount::testing {

// The rule `text`'s words say (dmc fault add's syntax); a failed parse fails the test.
inline FaultRule rule(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  auto r = parse_fault_rule(words);
  EXPECT_TRUE(r.ok()) << text;
  return r.ok() ? *r : FaultRule{};
}

inline void write_file(const std::string& file, const std::string& content) {
  std::ofstream out(file, std::ios::binary);
  out << content;
}

inline std::string read_all(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace diskcond::mount::testing
