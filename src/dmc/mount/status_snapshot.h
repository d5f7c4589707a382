// The daemon's answer to `dmc status`: its settings, the model's and the layout's counters, the
// fault rules' state and the reply timing's diagnostics, read now (control_protocol.h).
#pragma once

#include <string>

#include "dmc/mount/conditioner.h"
#include "dmc/mount/control_protocol.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/reply_scheduler.h"

namespace diskcond::mount {

// `crashable`: the mount was started with -crashable (it keeps a crash recorder).
StatusReply status_snapshot(const std::string& mount_point, Filesystem& fs,
                            Conditioner& conditioner, ReplyScheduler& scheduler, bool crashable);

}  // namespace diskcond::mount
