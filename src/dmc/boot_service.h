// Whether `dmc start -boot` will be honoured: dmc-boot.service (packaging/systemd) runs `dmc boot`
// at start-up only when systemd is the init system, the unit is installed where systemd looks for
// it, it is enabled, and the dmc it runs exists. Issue 13, item 5: status said "re-applied at boot
// by dmc-boot.service" with no unit installed and PID 1 not systemd.
#pragma once

#include <string>

namespace diskcond::dmc {

inline constexpr const char* kBootUnit = "dmc-boot.service";

// "" when dmc-boot.service will run at the next boot; otherwise why nothing will re-apply a
// '-boot' mount, as one clause: "PID 1 is sh, not systemd", "dmc-boot.service is not installed",
// "dmc-boot.service is not enabled (run 'sudo systemctl enable dmc-boot.service')",
// "dmc-boot.service runs /usr/bin/dmc, which does not exist". `root`: the file system root to
// look under ("/"; tests give a directory laid out like one).
std::string boot_service_problem(const std::string& root = "/");

}  // namespace diskcond::dmc
