#include "dmc/cli/verify_progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace diskcond::dmc {
namespace {

// Issue 13, item 8: progress lines went to stderr like errors when it was not a terminal.
TEST(DmcVerifyProgress, NothingWhenStderrIsNotATerminal) {
  std::ostringstream err;
  {
    VerifyProgress progress(err, /*terminal=*/false, 2);
    progress.show("SEQ1M Q1 read");
    progress.show("RND4K Q1 read");
  }
  EXPECT_EQ(err.str(), "");
}

TEST(DmcVerifyProgress, OneLineRewrittenInPlaceOnATerminalAndErasedAtTheEnd) {
  std::ostringstream err;
  {
    VerifyProgress progress(err, /*terminal=*/true, 2);
    progress.show("SEQ1M Q1 read");
    progress.show("RND4K Q1 read");
  }
  EXPECT_EQ(err.str(),
            "\r\033[Kdmc: verify: measuring SEQ1M Q1 read (1 of 2)"
            "\r\033[Kdmc: verify: measuring RND4K Q1 read (2 of 2)"
            "\r\033[K");
}

}  // namespace
}  // namespace diskcond::dmc
