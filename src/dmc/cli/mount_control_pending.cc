// TEMPORARY (branch `cli` only): lets dmc link before the mount machinery is merged.
// The lead deletes this file at merge; src/dmc/mount provides the real make_fuse_mount_control().
#include <memory>

#include "dmc/mount_control.h"

namespace diskcond {
namespace {

constexpr const char* kUnavailable = "conditioned mounts are not available in this build";

class PendingMountControl final : public MountControl {
 public:
  Status start(const std::string&, const MountSettings&) override { return make_error(kUnavailable); }
  Status stop(const std::string&, bool) override { return make_error(kUnavailable); }
  Result<MountStatus> status(const std::string&) override { return make_error(kUnavailable); }
  Status update(const std::string&, const MountSettings&) override { return make_error(kUnavailable); }
};

}  // namespace

std::unique_ptr<MountControl> make_fuse_mount_control() { return std::make_unique<PendingMountControl>(); }

}  // namespace diskcond
