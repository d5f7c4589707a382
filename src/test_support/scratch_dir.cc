#include "test_support/scratch_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

namespace diskcond::test_support {

ScratchDir::ScratchDir(std::string_view prefix) {
  std::string name =
      (std::filesystem::path(::testing::TempDir()) / (std::string(prefix) + ".XXXXXX")).string();
  if (::mkdtemp(name.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << name << " failed";
    return;
  }
  path_ = std::filesystem::canonical(name).string();
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

std::string ScratchDir::file(std::string_view name) const {
  return path_ + "/" + std::string(name);
}

}  // namespace diskcond::test_support
