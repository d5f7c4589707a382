// What `dmc disk create` and `dmc disk list` print: text and JSON (schema in docs/dmc.md, "dmc disk
// JSON"). Nothing here decides or touches the system.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "dmc/disk/disk_control.h"

namespace diskcond::dmc {

// A loop device whose image lies in a conditioned directory.
struct DiskView {
  disk::LoopDisk disk;
  std::string conditioned_mount;  // the conditioned directory that holds the image
  std::string profile_name;       // its profile now
};

// {"device", "image", "size_bytes", "block_bytes", "direct_io", "autoclear", "conditioned_mount",
//  "profile_name", "mount_points": [...]}
nlohmann::ordered_json disk_json(const DiskView& view);

// {"schema_version": 1, "disks": [<disk>, ...]}
nlohmann::ordered_json disk_list_json(const std::vector<DiskView>& views);

// {"schema_version": 1, "disk": <disk>, "file_system": "ext4"|null, "conditioning_started": bool}
nlohmann::ordered_json disk_create_json(const DiskView& view,
                                        const std::optional<std::string>& made_file_system,
                                        bool conditioning_started);

// One header line and one line per disk; nothing at all when there are none.
std::string format_disk_list(const std::vector<DiskView>& views);

}  // namespace diskcond::dmc
