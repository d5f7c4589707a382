#include "dmc/boot_service.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support/scratch_dir.h"

namespace diskcond::dmc {
namespace {

namespace fs = std::filesystem;

// A directory laid out like a machine's root, built up step by step.
class BootServiceTest : public ::testing::Test {
 protected:
  void make_dir(const std::string& dir) { fs::create_directories(root() + "/" + dir); }
  void write(const std::string& file, const std::string& text) {
    fs::create_directories(fs::path(root() + "/" + file).parent_path());
    std::ofstream(root() + "/" + file) << text;
  }
  const std::string& root() const { return temp_.path(); }

  test_support::ScratchDir temp_{"dmc-boot-service"};
};

// Issue 13, item 5: status claimed "re-applied at boot by dmc-boot.service" with PID 1 not
// systemd and no unit installed.
TEST_F(BootServiceTest, SaysWhatWillNotReapplyABootMount) {
  write("proc/1/comm", "sh\n");
  EXPECT_EQ(boot_service_problem(root()), "PID 1 is sh, not systemd");
  make_dir("run/systemd/system");
  EXPECT_EQ(boot_service_problem(root()), "dmc-boot.service is not installed");
  write("usr/local/lib/systemd/system/dmc-boot.service",
        "[Service]\nExecStart=/usr/local/bin/dmc boot\n");
  EXPECT_EQ(boot_service_problem(root()),
            "dmc-boot.service is not enabled (run 'sudo systemctl enable dmc-boot.service')");
  make_dir("etc/systemd/system/multi-user.target.wants");
  fs::create_symlink("/usr/local/lib/systemd/system/dmc-boot.service",
                     root() + "/etc/systemd/system/multi-user.target.wants/dmc-boot.service");
  EXPECT_EQ(boot_service_problem(root()),
            "dmc-boot.service runs /usr/local/bin/dmc, which does not exist");
  write("usr/local/bin/dmc", "");
  EXPECT_EQ(boot_service_problem(root()), "");
}

TEST_F(BootServiceTest, WithoutAnInitNameItStillSaysSystemdIsMissing) {
  EXPECT_EQ(boot_service_problem(root()), "the init system is not systemd");
}

}  // namespace
}  // namespace diskcond::dmc
