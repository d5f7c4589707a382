// What the tests of fault rules share (core's and the mount's): a rule from its words, as
// `dmc fault add` takes them, and the one line a refused rule gives.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/fault_rules.h"

namespace diskcond::testing {

// `text` split at blanks, as a shell would split `dmc fault add <dir> <words>`.
inline std::vector<std::string> fault_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The rule `text`'s words say; a refused rule fails the test (naming the text and the refusal)
// and gives a default rule.
inline FaultRule rule(const std::string& text) {
  auto r = parse_fault_rule(fault_words(text));
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error());
  return r.ok() ? *r : FaultRule{};
}

// The one line refusing `text`, or "accepted".
inline std::string error_of(const std::string& text) {
  auto r = parse_fault_rule(fault_words(text));
  return r.ok() ? "accepted" : r.error();
}

}  // namespace diskcond::testing
