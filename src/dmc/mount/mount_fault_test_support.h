// What the mount tests of fault rules share: a rule from its words, and whole-file helpers.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "core/fault_rule_test_support.h"

namespace diskcond::mount::testing {

// The rule `text`'s words say (dmc fault add's syntax); a failed parse fails the test.
using diskcond::testing::rule;

inline void write_file(const std::string& file, const std::string& content) {
  std::ofstream out(file, std::ios::binary);
  out << content;
}

inline std::string read_all(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace diskcond::mount::testing
