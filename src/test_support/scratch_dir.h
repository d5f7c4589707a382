// TEST ONLY: a scratch directory of a test's own. The one such helper: every layer's tests link
// this layer (CMakeLists.txt), the lowest, which uses no other.
#pragma once

#include <string>
#include <string_view>

namespace diskcond::test_support {

// A fresh directory "<prefix>.XXXXXX" (mkdtemp(3): unique, mode 0700) under the test temp dir
// (gtest's TempDir(): $TEST_TMPDIR, else /tmp), its path with symlinks resolved. The destructor
// removes it and everything in it, ignoring errors. When it cannot be made, the test fails
// (ADD_FAILURE) and path() is empty.
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view prefix = "diskcond-test");
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name: an entry in the directory (not created).
  std::string file(std::string_view name) const;

 private:
  std::string path_;
};

}  // namespace diskcond::test_support
