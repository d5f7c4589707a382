// TEST ONLY: a fresh directory under /tmp (symlinks resolved), removed with its contents when the
// object goes away. In the mount layer, the lowest whose tests use it (dmc/cli's tests do too).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace diskcond::mount::testing {

class TestTempDir {
 public:
  explicit TestTempDir(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + ".XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << tmpl << " failed";
      return;
    }
    path_ = std::filesystem::canonical(tmpl).string();
  }
  ~TestTempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TestTempDir(const TestTempDir&) = delete;
  TestTempDir& operator=(const TestTempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace diskcond::mount::testing
