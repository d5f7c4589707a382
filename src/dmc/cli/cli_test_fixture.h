// TEST ONLY: runs dmc commands in-process against a FakeMountControl, a temporary settings store
// and profile directory, and captures stdout and stderr.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "dmc/cli/dmc_cli.h"
#include "dmc/cli/fake_disk_control.h"
#include "dmc/cli/fake_mount_control.h"
#include "test_support/scratch_dir.h"

namespace diskcond::dmc {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = temp_.path();
    mount_ = root_ + "/mnt";
    other_mount_ = root_ + "/other";
    file_ = root_ + "/file";
    state_dir_ = root_ + "/state/mounts";
    profile_dir_ = root_ + "/profiles";
    std::filesystem::create_directories(mount_);
    std::filesystem::create_directories(other_mount_);
    std::filesystem::create_directories(profile_dir_);
    std::ofstream(file_) << "not a directory\n";
  }

  // Runs `dmc <args...>`; returns the exit code. out() and err() hold what it printed.
  int run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    Context ctx{
        .mounts = [this]() -> mount::MountControl& { return fake_; },
        .disks = [this]() -> disk::DiskControl& { return disks_; },
        .store = SettingsStore(state_dir_),
        .profile_dirs = {profile_dir_},
        .is_root = [this] { return is_root_; },
        .uid = [this] { return is_root_ ? uid_t{0} : user_uid_; },
        .out = out_,
        .err = err_,
        .processes_inside =
            [this](const std::string& dir, bool mounted, pid_t daemon_pid) {
              process_queries_.push_back(
                  fmt::format("{} mounted={} daemon={}", dir, mounted, daemon_pid));
              return processes_;
            },
        .boot_problem = [this] { return boot_problem_; },
    };
    return run_dmc(args, ctx);
  }

  std::string out() const { return out_.str(); }
  std::string err() const { return err_.str(); }
  SettingsStore store() const { return SettingsStore(state_dir_); }

  // Every file of the settings store and its content: to check that nothing changed.
  std::map<std::string, std::string> store_files() const {
    std::map<std::string, std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root_ + "/state", ec)) {
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      files[entry.path().string()] = text.str();
    }
    return files;
  }

  test_support::ScratchDir temp_{"dmc_cli_test"};
  FakeMountControl fake_;
  FakeDiskControl disks_;
  bool is_root_ = true;
  uid_t user_uid_ = 1000;  // the caller's uid when !is_root_
  // What Context::processes_inside answers, and each query ("<dir> mounted=<bool> daemon=<pid>").
  std::vector<mount::ProcessInside> processes_;
  std::vector<std::string> process_queries_;
  // What Context::boot_problem answers ("": dmc-boot.service will re-apply '-boot' mounts).
  std::string boot_problem_;
  std::string root_, mount_, other_mount_, file_, state_dir_, profile_dir_;

 private:
  std::ostringstream out_, err_;
};

// Number of '\n'-terminated lines in `text`.
inline size_t line_count(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace diskcond::dmc
