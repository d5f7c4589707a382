// The test binary's main: gtest's own, plus every failed assertion repeated at the very end of the
// output. A CI log that keeps only the head and the tail of a long run still shows why a test
// failed (stop 48's log cut the middle, and with it MountSendOrder's numbers).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

class FailureSummary final : public testing::EmptyTestEventListener {
 public:
  void OnTestStart(const testing::TestInfo& test) override {
    test_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestEnd(const testing::TestInfo&) override { test_ = "(outside a test)"; }

  // Called with gtest's lock held: asks gtest nothing (current_test_info() would deadlock).
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::string where = test_;
    if (result.file_name() != nullptr) {
      where +=
          std::string(" at ") + result.file_name() + ":" + std::to_string(result.line_number());
    }
    failures_.push_back(where + ":\n" + result.message());
  }

  void OnTestProgramEnd(const testing::UnitTest&) override {
    if (failures_.empty()) return;
    std::printf("\nFailed assertions (%zu, repeated from above):\n", failures_.size());
    for (const std::string& f : failures_) std::printf("- %s\n", f.c_str());
    std::fflush(stdout);
  }

 private:
  std::string test_ = "(outside a test)";
  std::vector<std::string> failures_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  testing::UnitTest::GetInstance()->listeners().Append(new FailureSummary);  // gtest owns it
  return RUN_ALL_TESTS();
}
