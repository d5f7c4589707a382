#include "rawio/progress_line.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace diskcond::rawio {
namespace {

TEST(RawioProgress, TextShowsTestTargetTimeAndRates) {
  Progress p{TestKind::kSequentialRead, 2'000'000'000, 2000, 2000 * 16384};
  EXPECT_EQ(progress_text("/dev/sdb", p), "SR  /dev/sdb    2 s     16000.0 K/sec      1000/sec");
}

TEST(RawioProgress, NothingIsWrittenWhenTheStreamIsNotATerminal) {
  std::FILE* f = std::tmpfile();
  ProgressLine line(f, true);
  EXPECT_FALSE(line.active());
  line.show("x", Progress{TestKind::kRandomRead, 1'000'000'000, 1, 1});
  line.clear();
  EXPECT_EQ(std::ftell(f), 0);
  std::fclose(f);
}

}  // namespace
}  // namespace diskcond::rawio
