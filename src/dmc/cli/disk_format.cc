#include "dmc/cli/disk_format.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/units.h"
#include "dmc/cli/json_format.h"

namespace diskcond::dmc {
namespace {

using json = nlohmann::ordered_json;

std::string mount_list(const disk::LoopDisk& disk) {
  std::string out;
  for (const disk::DiskMount& m : disk.mounts) out += (out.empty() ? "" : ",") + m.dir;
  return out.empty() ? "-" : out;
}

}  // namespace

json disk_json(const DiskView& view) {
  json points = json::array();
  for (const disk::DiskMount& m : view.disk.mounts) points.push_back(m.dir);
  return json{
      {"device", view.disk.device},
      {"image", view.disk.image},
      {"size_bytes", view.disk.size_bytes},
      {"block_bytes", view.disk.block_bytes},
      {"direct_io", view.disk.direct_io},
      {"autoclear", view.disk.autoclear},
      {"conditioned_mount", view.conditioned_mount},
      {"profile_name", view.profile_name},
      {"mount_points", points},
  };
}

json disk_list_json(const std::vector<DiskView>& views) {
  json disks = json::array();
  for (const DiskView& v : views) disks.push_back(disk_json(v));
  return json{{"schema_version", kJsonSchemaVersion}, {"disks", disks}};
}

json disk_create_json(const DiskView& view, const std::optional<std::string>& made_file_system,
                      bool conditioning_started) {
  return json{
      {"schema_version", kJsonSchemaVersion},
      {"disk", disk_json(view)},
      {"file_system", made_file_system ? json(*made_file_system) : json(nullptr)},
      {"conditioning_started", conditioning_started},
  };
}

std::string format_disk_list(const std::vector<DiskView>& views) {
  if (views.empty()) return "";
  struct Row {
    std::string device, size, dio, image, mount, profile, mounted;
  };
  std::vector<Row> rows = {
      {"DEVICE", "SIZE", "DIO", "IMAGE", "CONDITIONED", "PROFILE", "MOUNTED ON"}};
  for (const DiskView& v : views) {
    rows.push_back({v.disk.device, format_size(v.disk.size_bytes), v.disk.direct_io ? "on" : "off",
                    v.disk.image, v.conditioned_mount, v.profile_name, mount_list(v.disk)});
  }
  size_t w[6] = {};
  for (const Row& r : rows) {
    const std::string* cells[6] = {&r.device, &r.size, &r.dio, &r.image, &r.mount, &r.profile};
    for (size_t i = 0; i < 6; ++i) w[i] = std::max(w[i], cells[i]->size());
  }
  std::string out;
  for (const Row& r : rows) {
    out +=
        fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", r.device, w[0], r.size,
                    w[1], r.dio, w[2], r.image, w[3], r.mount, w[4], r.profile, w[5], r.mounted);
  }
  return out;
}

}  // namespace diskcond::dmc
