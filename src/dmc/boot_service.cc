#include "dmc/boot_service.h"

#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>

namespace diskcond::dmc {
namespace {

namespace fs = std::filesystem;

// Where systemd looks for system units that packages and administrators install, in its order.
constexpr std::string_view kUnitDirs[] = {"etc/systemd/system", "run/systemd/system",
                                          "usr/local/lib/systemd/system", "usr/lib/systemd/system",
                                          "lib/systemd/system"};
// Where `systemctl enable` (the unit's WantedBy=multi-user.target) or a package's static
// enablement puts the link.
constexpr std::string_view kWantsDirs[] = {"etc/systemd/system/multi-user.target.wants",
                                           "usr/lib/systemd/system/multi-user.target.wants",
                                           "lib/systemd/system/multi-user.target.wants"};

bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

// The program of the unit's ExecStart= line ("/usr/local/bin/dmc"), or "".
std::string exec_start_program(const fs::path& unit) {
  std::ifstream in(unit);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ExecStart=", 0) != 0) continue;
    std::string program = line.substr(10);
    program = program.substr(0, program.find(' '));
    if (!program.empty() && (program[0] == '-' || program[0] == '@')) program.erase(0, 1);
    return program;
  }
  return "";
}

}  // namespace

std::string boot_service_problem(const std::string& root) {
  const fs::path base(root);
  // sd_booted(3): systemd, and only systemd, makes /run/systemd/system at start-up.
  std::error_code ec;
  if (!fs::is_directory(base / "run/systemd/system", ec)) {
    std::ifstream comm(base / "proc/1/comm");
    std::string init;
    std::getline(comm, init);
    return init.empty() ? "the init system is not systemd" : "PID 1 is " + init + ", not systemd";
  }
  fs::path unit;
  for (std::string_view dir : kUnitDirs) {
    if (present(base / dir / kBootUnit)) {
      unit = base / dir / kBootUnit;
      break;
    }
  }
  if (unit.empty()) return std::string(kBootUnit) + " is not installed";
  bool enabled = false;
  for (std::string_view dir : kWantsDirs) enabled = enabled || present(base / dir / kBootUnit);
  if (!enabled) {
    return std::string(kBootUnit) + " is not enabled (run 'sudo systemctl enable " + kBootUnit +
           "')";
  }
  const std::string program = exec_start_program(unit);
  if (!program.empty() && !present(base / fs::path(program).relative_path())) {
    return std::string(kBootUnit) + " runs " + program + ", which does not exist";
  }
  return "";
}

}  // namespace diskcond::dmc
