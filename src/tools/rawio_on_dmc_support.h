// What the tests that measure a real dmc mount with rawio share (issue 16, "Measured and tested"):
// a scratch world with a directory conditioned by the built dmc binary, a 64 MiB file in it to
// read, and both binaries run with an environment of the world's own (dmc's state, run and profile
// directories, rawio's history database), so nothing of the machine's is touched. Skips where the
// machine cannot mount (not root, no usable /dev/fuse); the mount is stopped however a test ends.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tools/bad_input_harness.h"

namespace diskcond::tools {

class RawioOnDmc : public ::testing::Test {
 protected:
  static constexpr uint64_t kDataBytes = 64ull << 20;

  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "conditioning a directory with dmc start needs root";
    if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
    namespace fs = std::filesystem;
    for (const char* dir : {"cond", "state", "run", "profiles", "home", "xdg"})
      fs::create_directories(world_.path(dir));
    write_data_file(world_.path("cond/data"));
  }

  void TearDown() override {
    if (started_) dmc({"stop", cond(), "-force"});
  }

  std::string cond() const { return world_.path("cond"); }
  std::string data() const { return world_.path("cond/data"); }

  // `dmc start <cond> <profile>`; fails the test when it does not start.
  void start(const std::string& profile) {
    ProgramRun run = dmc({"start", cond(), profile});
    ASSERT_EQ(run.code, 0) << run.err;
    started_ = true;
  }

  ProgramRun dmc(const std::vector<std::string>& args) {
    return run_program(DMC_BINARY, args, env(), world_.path(""), world_.io_dir());
  }

  ProgramRun rawio(const std::vector<std::string>& args) {
    return run_program(RAWIO_BINARY, args, env(), world_.path(""), world_.io_dir());
  }

  // rawio's --json document of a run that must succeed; null (and a failure) otherwise.
  nlohmann::json rawio_json(const std::vector<std::string>& args) {
    std::vector<std::string> words = {"--json", "--no-progress"};
    words.insert(words.end(), args.begin(), args.end());
    ProgramRun run = rawio(words);
    EXPECT_EQ(run.code, 0) << shown_words(words) << ": " << run.err;
    auto doc = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(doc.is_discarded()) << shown_words(words) << ": " << run.out;
    return run.code == 0 && !doc.is_discarded() ? doc : nlohmann::json();
  }

  SweepWorld world_{"rawio_on_dmc"};

 private:
  std::vector<std::string> env() const {
    return {"DISKCOND_STATE_DIR=" + world_.path("state"),
            "DISKCOND_RUN_DIR=" + world_.path("run"),
            "DISKCOND_PROFILE_DIR=" + world_.path("profiles"),
            "HOME=" + world_.path("home"),
            "XDG_DATA_HOME=" + world_.path("xdg"),
            "PATH=/usr/bin:/bin:/usr/sbin:/sbin",
            "LC_ALL=C"};
  }

  // kDataBytes of pseudo-random bytes (written before the mount, straight to the disk).
  static void write_data_file(const std::string& path) {
    std::mt19937_64 rng(16);
    std::vector<uint64_t> block((1 << 20) / sizeof(uint64_t));
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ASSERT_GE(fd, 0) << path;
    for (uint64_t done = 0; done < kDataBytes; done += 1 << 20) {
      for (uint64_t& word : block) word = rng();
      ASSERT_EQ(::write(fd, block.data(), 1 << 20), 1 << 20);
    }
    ::close(fd);
  }

  bool started_ = false;
};

// The first (only) test of the first target of a rawio --json document.
inline const nlohmann::json& only_test(const nlohmann::json& doc) {
  return doc.at("targets").at(0).at("tests").at(0);
}

}  // namespace diskcond::tools
