#include "core/fault_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>

#include "core/fault_rule_test_support.h"

namespace diskcond {
namespace {

using testing::error_of;
using testing::rule;

// "F" for a fired request, "." for one let through.
std::string run(FaultRules& rules, FaultOp op, const std::string& path, int n, int64_t now = 0) {
  std::string out;
  for (int i = 0; i < n; ++i) out += rules.decide(op, path, 0, 4096, now) ? 'F' : '.';
  return out;
}

TEST(FaultRuleParse, ReadsEveryKey) {
  FaultRule r = rule("path=*.db ops=read,write range=4k-1m error=ENOSPC every=3");
  EXPECT_EQ(r.path, "*.db");
  EXPECT_EQ(r.ops, fault_op_bit(FaultOp::kRead) | fault_op_bit(FaultOp::kWrite));
  EXPECT_TRUE(r.has_range);
  EXPECT_EQ(r.range_begin, 4096u);
  EXPECT_EQ(r.range_end, 1u << 20);
  EXPECT_EQ(r.action, FaultAction::kError);
  EXPECT_EQ(r.error, ENOSPC);
  EXPECT_EQ(r.trigger, FaultTrigger::kEvery);
  EXPECT_EQ(r.n, 3u);

  EXPECT_EQ(error_of("ops=all short p=0.25 seed=7 window=500ms-2s"),
            "short applies to read and write only; ops= names others");
  FaultRule q = rule("ops=read short p=0.25 seed=7 window=500ms-2s");
  EXPECT_EQ(q.path, "*");
  EXPECT_EQ(q.action, FaultAction::kShort);
  EXPECT_EQ(q.trigger, FaultTrigger::kProbability);
  EXPECT_DOUBLE_EQ(q.probability, 0.25);
  EXPECT_TRUE(q.has_seed);
  EXPECT_EQ(q.seed, 7u);
  EXPECT_EQ(q.window_begin_ns, 500'000'000);
  EXPECT_EQ(q.window_end_ns, 2'000'000'000);
  EXPECT_EQ(rule("ops=open error=EACCES window=1-3").window_end_ns, 3'000'000'000);
}

TEST(FaultRuleParse, FormatsCanonicallyAndBack) {
  for (const char* text :
       {"path=*.db ops=read error=EIO every=2", "path=* ops=all error=EROFS",
        "path=logs/* ops=write range=0-4096 short after=10",
        "path=x ops=fsync,rename error=EDQUOT p=0.001 seed=18446744073709551615 window=1500ms-3s",
        "path=a? ops=read,write error=ENOSPC p=0.5"}) {
    FaultRule r = rule(text);
    EXPECT_EQ(fault_rule_text(r), text);
    auto back = parse_fault_rule(format_fault_rule(r));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, r);
  }
  EXPECT_EQ(fault_rule_text(rule("error=EIO ops=write,read")), "path=* ops=read,write error=EIO");
}

TEST(FaultRuleParse, RefusesWithOneLine) {
  EXPECT_EQ(error_of(""), "empty rule (for example: path=*.db ops=read error=EIO)");
  EXPECT_EQ(error_of("path=*.db error=EIO"), "a rule needs ops= (read, write, ... or all)");
  EXPECT_EQ(error_of("ops=read"),
            "a rule needs one action: error=NAME, short, corrupt, lost-write, bad= or stall=");
  EXPECT_EQ(error_of("ops=read short error=EIO"),
            "a rule needs one action: error=NAME, short, corrupt, lost-write, bad= or stall=");
  EXPECT_EQ(error_of("ops=reed error=EIO"),
            "unknown operation 'reed' (read, write, fsync, open, create, unlink, rename, mkdir, "
            "rmdir, setattr or all)");
  EXPECT_EQ(
      error_of("ops=read error=EWHAT"),
      "unknown error 'EWHAT' (EIO, ENOSPC, EROFS, EDQUOT, EACCES, ...; see dmc fault --help)");
  EXPECT_EQ(error_of("ops=read error=EIO every=0"), "every= must be at least 1");
  EXPECT_EQ(error_of("ops=read error=EIO every=x"), "every= takes a whole number, not 'x'");
  EXPECT_EQ(error_of("ops=read error=EIO every=2 after=3"),
            "a rule takes one trigger: every=, after= or p=");
  EXPECT_EQ(error_of("ops=read error=EIO p=1.5"), "p= takes a probability from 0 to 1, not '1.5'");
  EXPECT_EQ(error_of("ops=read error=EIO seed=3"), "seed= goes with p= (a probability)");
  EXPECT_EQ(error_of("ops=open range=0-4k error=EIO"),
            "range= applies to read and write only; ops= names others");
  EXPECT_EQ(error_of("ops=read range=4k-4k error=EIO"),
            "range=4k-4k is empty: FROM must be below TO");
  EXPECT_EQ(error_of("ops=read range=4k error=EIO"), "range= takes FROM-TO, not '4k'");
  EXPECT_EQ(error_of("ops=read error=EIO ops=write"), "'ops' given twice");
  EXPECT_EQ(error_of("ops=read error=EIO colour=red"),
            "unknown key 'colour' (keys: path, ops, range, error, short, corrupt, lost-write, "
            "every, after, p, seed, window, bad, sector, stall, at, period)");
  EXPECT_EQ(error_of("ops=read error=EIO oops"),
            "'oops' is not key=value (keys: path, ops, range, error, short, corrupt, lost-write, "
            "every, after, p, seed, window, bad, sector, stall, at, period)");
  EXPECT_EQ(error_of("ops=read short=1"), "short takes no value");
}

TEST(FaultRuleParse, FileHasOneRulePerLineWithComments) {
  auto rules = parse_fault_file(
      "# the database fails\n"
      "path=*.db ops=read error=EIO every=2   # every other read\n"
      "\n"
      "  ops=write error=ENOSPC after=100\r\n",
      "f.rules");
  ASSERT_TRUE(rules.ok()) << rules.error();
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ(fault_rule_text((*rules)[0]), "path=*.db ops=read error=EIO every=2");
  EXPECT_EQ(fault_rule_text((*rules)[1]), "path=* ops=write error=ENOSPC after=100");
  auto bad = parse_fault_file("ops=read error=EIO\n\nops=read\n", "f.rules");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(
      bad.error(),
      "f.rules:3: a rule needs one action: error=NAME, short, corrupt, lost-write, bad= or stall=");
  auto empty = parse_fault_file("# nothing\n", "f");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(FaultRules, EmptySetWantsNothingAndDecidesNothing) {
  FaultRules rules;
  for (int op = 0; op < kFaultOpCount; ++op) EXPECT_FALSE(rules.wants(static_cast<FaultOp>(op)));
  EXPECT_FALSE(rules.decide(FaultOp::kRead, "a.db", 0, 4096, 0));
  EXPECT_EQ(rules.injected(), 0u);
}

TEST(FaultRules, EverySecondMatchingRequestFires) {
  FaultRules rules;
  EXPECT_EQ(rules.add(rule("path=*.db ops=read error=EIO every=2"), 0), 1u);
  EXPECT_TRUE(rules.wants(FaultOp::kRead));
  EXPECT_FALSE(rules.wants(FaultOp::kWrite));
  EXPECT_EQ(run(rules, FaultOp::kRead, "sub/x.db", 6), ".F.F.F");
  EXPECT_EQ(run(rules, FaultOp::kRead, "x.txt", 3), "...") << "other paths do not count";
  EXPECT_EQ(run(rules, FaultOp::kWrite, "x.db", 3), "...") << "other ops do not count";
  FaultDecision d = rules.decide(FaultOp::kRead, "x.db", 0, 10, 0);
  EXPECT_FALSE(d);
  d = rules.decide(FaultOp::kRead, "x.db", 0, 10, 0);
  EXPECT_EQ(d.action, FaultAction::kError);
  EXPECT_EQ(d.error, EIO);
  EXPECT_EQ(d.rule_id, 1u);
  EXPECT_EQ(rules.injected(), 4u);
  auto listed = rules.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].matched, 8u);
  EXPECT_EQ(listed[0].fired, 4u);
}

TEST(FaultRules, AfterLetsTheFirstNThrough) {
  FaultRules rules;
  rules.add(rule("ops=write error=ENOSPC after=3"), 0);
  EXPECT_EQ(run(rules, FaultOp::kWrite, "f", 6), "...FFF");
}

TEST(FaultRules, ProbabilityFollowsItsSeed) {
  FaultRules a, b, c;
  a.add(rule("ops=read error=EIO p=0.3 seed=42"), 0);
  b.add(rule("ops=read error=EIO p=0.3 seed=42"), 0);
  c.add(rule("ops=read error=EIO p=0.3 seed=43"), 0);
  const std::string first = run(a, FaultOp::kRead, "f", 1000);
  EXPECT_EQ(first, run(b, FaultOp::kRead, "f", 1000));
  EXPECT_NE(first, run(c, FaultOp::kRead, "f", 1000));
  const auto fired = std::count(first.begin(), first.end(), 'F');
  EXPECT_GT(fired, 240);
  EXPECT_LT(fired, 360);
  // The sequence is splitmix64's: the draws of seed 42, compared with 0.3.
  uint64_t state = 42;
  std::string expected;
  for (int i = 0; i < 1000; ++i) expected += uniform01(state) < 0.3 ? 'F' : '.';
  EXPECT_EQ(first, expected);
  FaultRules never, always;
  never.add(rule("ops=read error=EIO p=0 seed=1"), 0);
  always.add(rule("ops=read error=EIO p=1 seed=1"), 0);
  EXPECT_EQ(run(never, FaultOp::kRead, "f", 50), std::string(50, '.'));
  EXPECT_EQ(run(always, FaultOp::kRead, "f", 50), std::string(50, 'F'));
}

TEST(FaultRules, SplitMix64MatchesTheReference) {
  uint64_t state = 0;  // Vigna's splitmix64.c from seed 0
  EXPECT_EQ(splitmix64(state), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(splitmix64(state), 0x6e789e6aa1b965f4ULL);
}

TEST(FaultRules, RangeMustOverlapTheRequest) {
  FaultRules rules;
  rules.add(rule("ops=read range=8k-12k error=EIO"), 0);
  EXPECT_FALSE(rules.decide(FaultOp::kRead, "f", 0, 8192, 0));
  EXPECT_TRUE(rules.decide(FaultOp::kRead, "f", 4096, 8193, 0));
  EXPECT_TRUE(rules.decide(FaultOp::kRead, "f", 12287, 1, 0));
  EXPECT_FALSE(rules.decide(FaultOp::kRead, "f", 12288, 4096, 0));
}

TEST(FaultRules, WindowCountsFromTheRulesStart) {
  FaultRules rules;
  const int64_t added = 5'000'000'000;
  rules.add(rule("ops=unlink error=EROFS window=1s-2s"), added);
  EXPECT_EQ(run(rules, FaultOp::kUnlink, "f", 2, added + 999'999'999), "..");
  EXPECT_EQ(run(rules, FaultOp::kUnlink, "f", 2, added + 1'000'000'000), "FF");
  EXPECT_EQ(run(rules, FaultOp::kUnlink, "f", 2, added + 2'000'000'000), "..");
  EXPECT_EQ(rules.list()[0].matched, 2u) << "requests outside the window do not count";
}

TEST(FaultRules, ShortDoesHalfAtLeastOneByte) {
  FaultRules rules;
  rules.add(rule("ops=write short"), 0);
  EXPECT_EQ(rules.decide(FaultOp::kWrite, "f", 0, 4096, 0).length, 2048u);
  EXPECT_EQ(rules.decide(FaultOp::kWrite, "f", 0, 3, 0).length, 1u);
  EXPECT_EQ(rules.decide(FaultOp::kWrite, "f", 0, 1, 0).length, 1u);
  EXPECT_EQ(rules.decide(FaultOp::kWrite, "f", 0, 1, 0).action, FaultAction::kShort);
}

TEST(FaultRules, TheLogKeepsTheLatestFaultsInOrder) {
  FaultRules rules;
  rules.add(rule("path=*.db ops=read,write error=EIO every=2"), 0);
  rules.add(rule("ops=write short"), 0);
  EXPECT_FALSE(rules.decide(FaultOp::kRead, "a.db", 0, 10, 100, 7));
  EXPECT_TRUE(rules.decide(FaultOp::kRead, "a.db", 4096, 10, 200, 7));
  EXPECT_TRUE(rules.decide(FaultOp::kWrite, "b", 0, 4096, 300, 8));
  const std::vector<FaultEvent> log = rules.log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0], (FaultEvent{1, 200, 1, FaultOp::kRead, "a.db", 4096, 10, FaultAction::kError,
                                EIO, 0, 7}));
  EXPECT_EQ(log[1], (FaultEvent{2, 300, 2, FaultOp::kWrite, "b", 0, 4096, FaultAction::kShort, 0,
                                2048, 8}));
  EXPECT_EQ(rules.log(1).size(), 1u);

  for (size_t i = 0; i < kFaultLogCapacity + 5; ++i) rules.decide(FaultOp::kWrite, "b", 0, 2, 0);
  const std::vector<FaultEvent> full = rules.log();
  ASSERT_EQ(full.size(), kFaultLogCapacity);
  EXPECT_EQ(full.front().seq, 8u) << "the oldest 7 are gone";
  EXPECT_EQ(full.back().seq, kFaultLogCapacity + 7);
}

TEST(FaultRules, FirstFiringRuleDecidesAndRemoveClearStopIt) {
  FaultRules rules;
  const uint64_t a = rules.add(rule("path=*.db ops=read error=EIO every=2"), 0);
  const uint64_t b = rules.add(rule("ops=read,write error=EACCES"), 0);
  EXPECT_EQ(rules.decide(FaultOp::kRead, "x.db", 0, 1, 0).error, EACCES);
  EXPECT_EQ(rules.decide(FaultOp::kRead, "x.db", 0, 1, 0).error, EIO);
  EXPECT_EQ(rules.list()[1].matched, 1u) << "the second rule did not see what the first failed";
  EXPECT_TRUE(rules.remove(b, 0));
  EXPECT_FALSE(rules.remove(b, 0));
  EXPECT_FALSE(rules.wants(FaultOp::kWrite));
  EXPECT_TRUE(rules.wants(FaultOp::kRead));
  EXPECT_EQ(rules.add(rule("ops=mkdir error=EDQUOT"), 0), 3u) << "ids are never reused";
  EXPECT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules.clear(0), 2u);
  EXPECT_FALSE(rules.wants(FaultOp::kRead));
  EXPECT_FALSE(rules.decide(FaultOp::kRead, "x.db", 0, 1, 0));
  EXPECT_EQ(rules.injected(), 2u) << "the count outlives the rules";
  static_cast<void>(a);
}

}  // namespace
}  // namespace diskcond
