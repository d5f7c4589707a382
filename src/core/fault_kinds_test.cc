// The fault kinds beyond errors (fault_rules.h): corruption, lost writes, bad sectors (dm-dust),
// stall rules' words, and faults files in TOML.
#include <gtest/gtest.h>

#include <cerrno>

#include "core/bad_sectors.h"
#include "core/fault_rule_test_support.h"
#include "core/fault_rules.h"
#include "core/flat_toml.h"

namespace diskcond {
namespace {

using testing::error_of;
using testing::rule;

TEST(FaultKinds, NewWordsFormatCanonicallyAndBack) {
  for (const char* text :
       {"path=*.db ops=read corrupt seed=5", "path=*.db ops=read range=0-4096 corrupt=zero every=3",
        "path=log ops=write lost-write after=2", "path=disk.img bad=4096-8192,1048576-1049088",
        "path=*.img bad=0-512 sector=4096", "stall=5s",
        "stall=100ms-2s at=1s period=30s p=0.5 seed=3", "stall=unbounded at=10s"}) {
    FaultRule r = rule(text);
    EXPECT_EQ(fault_rule_text(r), text);
    auto back = parse_fault_rule(format_fault_rule(r));
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(*back, r) << text;
  }
  EXPECT_EQ(rule("bad=4k-8k path=x").ops,
            fault_op_bit(FaultOp::kRead) | fault_op_bit(FaultOp::kWrite));
  EXPECT_EQ(rule("stall=1s").ops, 0u) << "a stall concerns no request";
  EXPECT_TRUE(needs_seed(rule("ops=read corrupt")));
  EXPECT_FALSE(needs_seed(rule("ops=read corrupt=zero")));
  EXPECT_TRUE(needs_seed(rule("stall=1s-2s")));
  EXPECT_FALSE(needs_seed(rule("stall=1s period=5s")));
  EXPECT_TRUE(needs_seed(rule("stall=1s period=5s p=0.1")));
}

TEST(FaultKinds, RefusedWithOneLine) {
  EXPECT_EQ(error_of("ops=read,write corrupt"), "corrupt applies to reads: it takes ops=read");
  EXPECT_EQ(error_of("ops=read lost-write"), "lost-write applies to writes: it takes ops=write");
  EXPECT_EQ(error_of("ops=read corrupt=half"), "corrupt= takes flip or zero, not 'half'");
  EXPECT_EQ(error_of("ops=write lost-write=1"), "lost-write takes no value");
  EXPECT_EQ(error_of("ops=read error=EIO corrupt"),
            "a rule needs one action: error=NAME, short, corrupt, lost-write, bad= or stall=");
  EXPECT_EQ(error_of("ops=read error=EIO period=1s"), "period= goes with stall=");
  EXPECT_EQ(error_of("path=x bad=8k-4k"), "bad=8k-4k is empty: FROM must be below TO");
  EXPECT_EQ(error_of("path=x bad=4k-8k ops=read"),
            "ops does not go with bad= (it takes path=, bad=, sector)");
  EXPECT_EQ(error_of("path=x bad=4k-8k sector=100"),
            "sector= takes 512, 1024, 2048 or 4096, not '100'");
  EXPECT_EQ(error_of("stall=0"), "stall=0 is out of range (above 0 to 24 hours)");
  EXPECT_EQ(error_of("stall=86401s"), "stall=86401s is out of range (above 0 to 24 hours)");
  EXPECT_EQ(error_of("stall=unbounded period=1s"),
            "stall=unbounded happens once: it takes no period=");
  EXPECT_EQ(error_of("stall=1s p=0.5"),
            "p= of a stall goes with period= (each period stalls with probability p)");
  EXPECT_EQ(error_of("stall=1s period=2s p=0"), "p= of a stall must be above 0");
  EXPECT_EQ(error_of("stall=1s seed=4"),
            "seed= goes with p= or a random stall length (stall=MIN-MAX)");
  EXPECT_EQ(error_of("stall=1s ops=read"),
            "ops does not go with stall= (it takes stall=, at=, period=, p=, seed)");
}

// Zeros, or one bit per 512-byte sector of the file, inside the rule's range only.
TEST(FaultKinds, CorruptionAltersTheReplyWhereTheRuleSays) {
  FaultRules rules;
  rules.add(rule("path=f ops=read range=1000-2000 corrupt=zero"), 0);
  FaultDecision d = rules.decide(FaultOp::kRead, "f", 512, 1024, 0);
  ASSERT_EQ(d.action, FaultAction::kCorrupt);
  std::string data(1024, 'x');
  corrupt_reply(d, 512, data);
  EXPECT_EQ(data, std::string(488, 'x') + std::string(536, '\0'));

  FaultRules flips;
  flips.add(rule("path=f ops=read corrupt seed=11"), 0);
  const FaultDecision f = flips.decide(FaultOp::kRead, "f", 256, 1024, 0);
  std::string a(1024, '\0');
  corrupt_reply(f, 256, a);
  // Sectors 0, 1, 2 of the file: [256, 512), [512, 1024), [1024, 1280): one bit each.
  int bits = 0;
  for (char c : a) bits += __builtin_popcount(static_cast<unsigned char>(c));
  EXPECT_EQ(bits, 3);
  uint64_t state = 11 ^ (1 * 0x9E3779B97F4A7C15ULL);
  const uint64_t seed = splitmix64(state);
  EXPECT_EQ(f.corrupt_seed, seed) << "the first corruption's draw";
  std::string b(1024, '\0');
  corrupt_reply(f, 256, b);
  EXPECT_EQ(a, b) << "the same decision corrupts the same bits";
  state = seed ^ (1 * 0xD1B54A32D192ED03ULL);
  const uint64_t bit = splitmix64(state) % (512 * 8);  // sector 1, all 512 bytes in the read
  EXPECT_NE(a[256 + bit / 8] & (1 << (bit % 8)), 0);
  const FaultDecision second = flips.decide(FaultOp::kRead, "f", 256, 1024, 0);
  EXPECT_NE(second.corrupt_seed, f.corrupt_seed) << "each corruption draws anew";
  EXPECT_EQ(flips.log().back().action, FaultAction::kCorrupt);
}

TEST(FaultKinds, ALostWriteIsDecidedOnlyByItsRule) {
  FaultRules rules;
  EXPECT_FALSE(rules.decide(FaultOp::kWrite, "w", 0, 4096, 0));
  rules.add(rule("path=w ops=write lost-write every=2"), 0);
  EXPECT_EQ(rules.decide(FaultOp::kWrite, "w", 0, 4096, 0).action, FaultAction::kNone);
  EXPECT_EQ(rules.decide(FaultOp::kWrite, "w", 0, 4096, 0).action, FaultAction::kLostWrite);
  EXPECT_EQ(rules.decide(FaultOp::kWrite, "other", 0, 4096, 0).action, FaultAction::kNone);
  EXPECT_FALSE(rules.wants(FaultOp::kRead));
  EXPECT_EQ(rules.injected(), 1u);
}

// dm-dust: reads of a bad sector fail until a write covers it, per file.
TEST(FaultKinds, BadSectorsFailReadsUntilRewritten) {
  FaultRules rules;
  const uint64_t id = rules.add(rule("path=*.img bad=4096-8192"), 0);
  auto read = [&](const char* path, uint64_t off, uint64_t len) {
    const FaultDecision d = rules.decide(FaultOp::kRead, path, off, len, 0);
    return d.action == FaultAction::kError && d.error == EIO ? 'F' : '.';
  };
  EXPECT_EQ(read("a.img", 0, 4096), '.');
  EXPECT_EQ(read("a.img", 0, 4097), 'F');
  EXPECT_EQ(read("a.img", 8191, 1), 'F');
  EXPECT_EQ(read("a.img", 8192, 4096), '.');
  EXPECT_EQ(read("a.txt", 4096, 4096), '.');
  // A write of part of a sector repairs nothing; one covering sectors repairs those.
  EXPECT_FALSE(rules.decide(FaultOp::kWrite, "a.img", 4100, 100, 0));
  EXPECT_EQ(read("a.img", 4096, 512), 'F');
  EXPECT_FALSE(rules.decide(FaultOp::kWrite, "a.img", 4000, 1136, 0));  // covers [4096, 5120)
  EXPECT_EQ(read("a.img", 4096, 1024), '.');
  EXPECT_EQ(read("a.img", 5120, 1), 'F');
  EXPECT_EQ(read("b.img", 4096, 1), 'F') << "another file keeps its bad sectors";
  // A write that an error rule fails repairs nothing.
  rules.add(rule("path=a.img ops=write error=EIO"), 0);
  EXPECT_EQ(rules.decide(FaultOp::kWrite, "a.img", 4096, 4096, 0).action, FaultAction::kError);
  EXPECT_EQ(read("a.img", 5120, 1), 'F');
  const std::vector<FaultRuleState> list = rules.list();
  EXPECT_EQ(list[0].id, id);
  EXPECT_EQ(list[0].repaired, 1024u);
  EXPECT_EQ(list[0].fired, 6u);
  const std::vector<FaultEvent> log = rules.log();
  EXPECT_EQ(log.front().action, FaultAction::kBadSectors);
  EXPECT_EQ(log.front().error, EIO);

  FaultRules lost;
  lost.add(rule("path=* ops=write lost-write"), 0);
  lost.add(rule("path=x bad=0-512"), 0);
  EXPECT_EQ(lost.decide(FaultOp::kWrite, "x", 0, 512, 0).action, FaultAction::kLostWrite);
  EXPECT_EQ(lost.decide(FaultOp::kRead, "x", 0, 512, 0).error, EIO) << "a lost write repairs none";
}

TEST(FaultKinds, BadSectorRangesWidenToWholeSectors) {
  BadSectors bad(std::vector<ByteRange>{{100, 200}, {4000, 4100}, {600, 1100}}, 512);
  EXPECT_EQ(bad.bad_in("f"), (std::vector<ByteRange>{{0, 1536}, {3584, 4608}}));
  EXPECT_EQ(bad.wrote("f", 512, 512), 512u);
  EXPECT_EQ(bad.bad_in("f"), (std::vector<ByteRange>{{0, 512}, {1024, 1536}, {3584, 4608}}));
  EXPECT_FALSE(bad.read_fails("f", 512, 512));
  EXPECT_TRUE(bad.read_fails("g", 512, 512));
  EXPECT_FALSE(bad.read_fails("f", 0, 0));
}

TEST(FaultKinds, AFaultsFileMayBeToml) {
  auto rules = parse_fault_file(
      "# flaky database\n"
      "[[rule]]\n"
      "path = \"*.db\"\n"
      "ops = \"read\"\n"
      "error = \"EIO\"\n"
      "p = 0.25\n"
      "seed = 7\n"
      "\n"
      "[[rule]]\n"
      "ops = \"write\"\n"
      "lost-write = true\n"
      "short = false\n"
      "\n"
      "[[rule]]\n"
      "stall = \"2s\"\n"
      "period = \"60s\"\n",
      "f.toml");
  ASSERT_TRUE(rules.ok()) << rules.error();
  ASSERT_EQ(rules->size(), 3u);
  EXPECT_EQ(fault_rule_text((*rules)[0]), "path=*.db ops=read error=EIO p=0.25 seed=7");
  EXPECT_EQ(fault_rule_text((*rules)[1]), "path=* ops=write lost-write");
  EXPECT_EQ(fault_rule_text((*rules)[2]), "stall=2s period=60s");

  const std::pair<const char*, const char*> bad[] = {
      {"[[rule]]\nops = \"read\"\n",
       "f.toml:1: a rule needs one action: error=NAME, short, "
       "corrupt, lost-write, bad= or stall="},
      {"[[rule]]\nops = \"read\"\nops = \"write\"\n",
       "f.toml:3: duplicate key 'ops' (first on line 2)"},
      {"[[rules]]\nops = \"read\"\n", "f.toml:2: [[rules]] is not [[rule]]"},
      {"[[rule]]\n[table]\n", "f.toml:2: only arrays of tables ([[name]]) are read here"},
      {"[[rule]]\npath = true\n", "f.toml:2: 'path' takes a value, not true or false"},
      {"[[rule]]\nshort = \"yes\"\n", "f.toml:2: 'short' takes true or false"},
      {"[[rule]]\np = 1.\n", "f.toml:2: a float needs digits after '.'"},
  };
  for (auto [text, error] : bad) {
    auto r = parse_fault_file(text, "f.toml");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error(), error) << text;
  }
}

TEST(FaultKinds, FlatTomlTakesTablesFloatsAndBooleansOnlyWhenAsked) {
  auto plain = parse_flat_toml("a = 0.5\n", "p.toml");
  ASSERT_FALSE(plain.ok());
  auto r = parse_flat_toml("top = 1\n[[t]]\na = 0.5\nb = true\n[[t]]\na = 2e-3\n", "f.toml",
                           FlatTomlOptions{true, true});
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].table_index, -1);
  EXPECT_EQ((*r)[1].table, "t");
  EXPECT_EQ((*r)[1].kind, FlatTomlKind::kFloat);
  EXPECT_EQ((*r)[1].value, "0.5");
  EXPECT_EQ((*r)[2].kind, FlatTomlKind::kBoolean);
  EXPECT_EQ((*r)[3].table_index, 1);
  EXPECT_EQ((*r)[3].value, "2e-3");
  EXPECT_EQ((*r)[3].table_line, 5);
}

}  // namespace
}  // namespace diskcond
