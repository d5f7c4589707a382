// The engine on a plain directory, no mount: it passes on a correct filesystem, is
// reproducible from its seed, and fails loudly when data changes behind its back.
#include "harness/integrity/op_engine.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "harness/integrity/concurrent_clients.h"
#include "test_support/scratch_dir.h"

namespace diskcond::harness::integrity {
namespace {

class OpEngineTest : public ::testing::Test {
 protected:
  EngineOptions options(uint64_t seed, uint64_t ops) {
    EngineOptions o;
    o.dir = dir_.path();
    o.seed = seed;
    o.ops = ops;
    return o;
  }
  test_support::ScratchDir dir_{"diskcond-integrity"};
};

TEST(FirstDifference, FindsTheFirstDifferingByteOrTheShorterLength) {
  const Bytes a{1, 2, 3}, b{1, 5, 3}, c{1, 2};
  EXPECT_EQ(first_difference(a, a), std::nullopt);
  EXPECT_EQ(first_difference(a, b), 1u);
  EXPECT_EQ(first_difference(a, c), 2u);
  EXPECT_EQ(first_difference(c, a), 2u);
}

TEST_F(OpEngineTest, PassesOnAPlainDirectoryAndUsesEveryOperation) {
  OpEngine engine(options(7, 3000));
  const EngineReport r = engine.run();
  ASSERT_FALSE(r.mismatch) << r.mismatch->describe();
  EXPECT_EQ(r.steps_done, 3000u);
  for (size_t op = 0; op < static_cast<size_t>(Op::kCount); ++op) {
    if (r.direct_refused && (op == size_t(Op::kDirectRead) || op == size_t(Op::kDirectWrite))) {
      continue;
    }
    EXPECT_GT(r.op_counts[op], 0u) << op_name(static_cast<Op>(op));
  }
  const auto m = engine.verify_all(dir_.path());
  EXPECT_FALSE(m) << m->describe();
}

TEST_F(OpEngineTest, SameSeedSameRun) {
  OpEngine first(options(11, 500));
  const EngineReport a = first.run();
  std::filesystem::remove_all(dir_.path());
  std::filesystem::create_directory(dir_.path());
  OpEngine second(options(11, 500));
  const EngineReport b = second.run();
  ASSERT_FALSE(a.mismatch || b.mismatch);
  for (size_t op = 0; op < static_cast<size_t>(Op::kCount); ++op) {
    EXPECT_EQ(a.op_counts[op], b.op_counts[op]) << op_name(static_cast<Op>(op));
  }
  for (size_t s = 0; s < first.model().slot_count(); ++s) {
    ASSERT_EQ(first.model().occupied(s), second.model().occupied(s));
    if (first.model().occupied(s)) {
      EXPECT_EQ(first.model().contents(s), second.model().contents(s));
    }
  }
}

// The checker can fail: one byte of every non-empty file flipped behind the engine's back in the
// middle of the run is reported, with the seed, the step and an offset.
TEST_F(OpEngineTest, CorruptionBehindItsBackIsReported) {
  EngineOptions o = options(3, 2000);
  OpEngine* engine = nullptr;
  o.before_step = [&](uint64_t step) {
    if (step != 1000) return;
    for (size_t s = 0; s < engine->model().slot_count(); ++s) {
      if (!engine->model().occupied(s) || engine->model().size(s) == 0) continue;
      const std::string p = dir_.file("f" + std::to_string(s));
      int fd = open(p.c_str(), O_RDWR);
      ASSERT_GE(fd, 0);
      const off_t at = static_cast<off_t>(engine->model().size(s) / 2);
      uint8_t b = engine->model().contents(s)[at] ^ 0x5a;
      ASSERT_EQ(pwrite(fd, &b, 1, at), 1);
      close(fd);
    }
  };
  OpEngine e(o);
  engine = &e;
  EngineReport r = e.run();
  std::optional<Mismatch> m = r.mismatch ? r.mismatch : e.verify_all(dir_.path());
  ASSERT_TRUE(m) << "corruption went unnoticed";
  std::cout << "reported: " << m->describe() << "\n";
  EXPECT_EQ(m->seed, 3u);
  EXPECT_GE(m->step, 1000u);
  EXPECT_GE(m->offset, 0);
  EXPECT_NE(m->describe().find("seed=3 step="), std::string::npos) << m->describe();
}

// The checker can fail: a reference that is wrong by one byte is reported at exactly that byte.
TEST_F(OpEngineTest, AWrongReferenceIsReportedAtTheByte) {
  OpEngine e(options(5, 800));
  ASSERT_FALSE(e.run().mismatch);
  ASSERT_FALSE(e.verify_all(dir_.path()));
  for (size_t s = 0; s < e.model().slot_count(); ++s) {
    if (!e.model().occupied(s) || e.model().size(s) < 10) continue;
    e.mutable_model().mutable_contents(s)[9] ^= 1;
    const auto m = e.verify_all(dir_.path());
    ASSERT_TRUE(m);
    EXPECT_EQ(m->offset, 9);
    EXPECT_EQ(m->op, "final-verify");
    return;
  }
  FAIL() << "no file of 10 bytes or more to test with";
}

TEST_F(OpEngineTest, ConcurrentClientsKeepToTheirOwnFiles) {
  ClientsOptions o;
  o.engine.dir = dir_.path();
  o.clients = 4;
  o.seed = 100;
  o.total_ops = 2000;
  const ClientsRun run = run_clients(o);
  EXPECT_EQ(run.steps(), 2000u);
  for (const auto& m : run.mismatches()) ADD_FAILURE() << m.describe();
  for (const auto& m : verify_clients(run, dir_.path())) ADD_FAILURE() << m.describe();
}

}  // namespace
}  // namespace diskcond::harness::integrity
