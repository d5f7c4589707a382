// dmc disk: a disk of an image file in a conditioned directory, through a kernel loop device, so
// a real file system (ext4: page cache, writeback, journal, block merging) runs on the disk model.
// This file: dispatching the subcommands, `list` and `remove`; `create` is in
// command_disk_create.cc.
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "dmc/cli/commands.h"
#include "dmc/cli/disk_commands.h"
#include "dmc/cli/disk_paths.h"
#include "dmc/cli/json_format.h"

namespace diskcond::dmc {
namespace {

struct DiskSubcommand {
  std::string_view name;
  size_t min_positional, max_positional;  // after the subcommand word
  std::vector<std::string_view> positional_names;
  std::vector<std::string_view> options;  // flags and value options it takes
  bool needs_root;
  Outcome (*run)(Context&, const CommandArgs&);
};

const std::vector<DiskSubcommand>& subcommands() {
  static const std::vector<DiskSubcommand> table = {
      {"create",
       2,
       3,
       {"<image>", "<size>"},
       {"json", "start", "existing", "mkfs", "mount"},
       true,
       run_disk_create},
      {"remove", 1, 1, {"<image|device|directory>"}, {"delete"}, true, run_disk_remove},
      {"list", 0, 0, {}, {"json"}, false, run_disk_list},
  };
  return table;
}

// The directory of a path the kernel reports ("/m/img (deleted)" -> "/m").
std::string parent_of(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "/" : parent;
}

}  // namespace

std::string Undo::run() {
  std::string problems;
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    Status s = it->step();
    if (!s.ok()) problems += fmt::format("; undoing {} failed: {}", it->what, s.error());
  }
  steps_.clear();
  return problems;
}

Outcome run_disk(Context& ctx, const CommandArgs& args) {
  const std::string& word = args.positional[0];
  auto sub = std::find_if(subcommands().begin(), subcommands().end(),
                          [&](const auto& s) { return s.name == word; });
  if (sub == subcommands().end()) {
    return usage_error(fmt::format(
        "unknown disk command '{}' (create, remove or list; see 'dmc disk --help')", word));
  }
  const std::string name = fmt::format("dmc disk {}", sub->name);
  std::vector<std::string> given = args.options;
  for (const auto& [option, value] : args.values) given.push_back(option);
  for (const std::string& option : given) {
    if (std::find(sub->options.begin(), sub->options.end(), option) == sub->options.end()) {
      return usage_error(
          fmt::format("option '-{}' does not apply to '{}' (see 'dmc disk --help')", option, name));
    }
  }
  CommandArgs own = args;
  own.positional.erase(own.positional.begin());
  if (own.positional.size() < sub->min_positional) {
    return usage_error(fmt::format("missing {} for '{}' (see 'dmc disk --help')",
                                   sub->positional_names[own.positional.size()], name));
  }
  if (own.positional.size() > sub->max_positional) {
    return usage_error(fmt::format("unexpected argument '{}' for '{}' (see 'dmc disk --help')",
                                   own.positional[sub->max_positional], name));
  }
  if (sub->needs_root && !ctx.is_root()) {
    return failure(
        ExitCode::kNeedsRoot,
        fmt::format("'{}' attaches and detaches loop devices and needs root; run it with sudo",
                    name));
  }
  return sub->run(ctx, own);
}

Result<std::vector<DiskView>> dmc_disks(Context& ctx, std::vector<disk::LoopDisk>* all) {
  auto loops = ctx.disks().list();
  if (!loops.ok()) return make_error(loops.error());
  std::vector<DiskView> views;
  std::map<std::string, std::optional<mount::MountStatus>> holders;  // by image directory
  for (const disk::LoopDisk& disk : *loops) {
    if (disk.image.empty() || disk.image[0] != '/') continue;
    const std::string dir = parent_of(disk.image);
    auto known = holders.find(dir);
    if (known == holders.end()) {
      std::optional<mount::MountStatus> holder;
      struct stat st {};
      if (::stat(dir.c_str(), &st) == 0) {
        auto found = find_holding_mount(ctx.mounts(), dir, st.st_dev);
        if (found.ok()) holder = *found;
      }
      known = holders.emplace(dir, holder).first;
    }
    const std::optional<mount::MountStatus>& holder = known->second;
    // The image must be on the conditioned file system itself (its st_dev), not merely below it.
    if (!holder) continue;
    struct stat mst {};
    if (holder->daemon_alive &&
        (::stat(holder->mount_point.c_str(), &mst) != 0 || mst.st_dev != disk.image_dev))
      continue;
    views.push_back({disk, holder->mount_point,
                     holder->daemon_alive ? holder->settings.profile.name : "(stale)"});
  }
  if (all != nullptr) *all = std::move(loops).value();
  return views;
}

Outcome run_disk_list(Context& ctx, const CommandArgs& args) {
  auto disks = dmc_disks(ctx);
  if (!disks.ok()) return failure(ExitCode::kFailed, disks.error());
  ctx.out << (args.has("json") ? render_json(disk_list_json(*disks)) : format_disk_list(*disks));
  return success();
}

Outcome run_disk_remove(Context& ctx, const CommandArgs& args) {
  const std::string& arg = args.positional[0];
  if (arg.empty()) return usage_error("the image, device or directory to remove is empty");
  struct stat st {};
  if (::stat(arg.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR)
      return usage_error(fmt::format("no such image, loop device or directory '{}'", arg));
    return usage_error(fmt::format("cannot access '{}': {}", arg, std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISDIR(st.st_mode)) {
    return usage_error(fmt::format("'{}' is not an image, a loop device or a directory", arg));
  }
  std::string canonical = arg;
  if (!S_ISBLK(st.st_mode)) canonical = std::filesystem::canonical(arg).string();

  std::vector<disk::LoopDisk> all;
  auto disks = dmc_disks(ctx, &all);
  if (!disks.ok()) return failure(ExitCode::kFailed, disks.error());
  auto matches = [&](const disk::LoopDisk& d) {
    if (S_ISBLK(st.st_mode)) return d.device_number == st.st_rdev;
    if (S_ISREG(st.st_mode)) return d.image_dev == st.st_dev && d.image_ino == st.st_ino;
    return std::any_of(d.mounts.begin(), d.mounts.end(),
                       [&](const disk::DiskMount& m) { return m.dir == canonical; });
  };
  std::vector<DiskView> chosen;
  for (const DiskView& v : *disks) {
    if (matches(v.disk)) chosen.push_back(v);
  }
  if (chosen.empty()) {
    auto other = std::find_if(all.begin(), all.end(), matches);
    if (other != all.end()) {
      return failure(ExitCode::kWrongState,
                     fmt::format("{} is not a dmc disk: its image {} is not in a conditioned "
                                 "directory (detach it with losetup -d)",
                                 other->device, other->image));
    }
    const char* what = S_ISBLK(st.st_mode)   ? "is not an attached loop device"
                       : S_ISREG(st.st_mode) ? "is not attached to a loop device"
                                             : "is not where a dmc disk is mounted";
    return failure(ExitCode::kWrongState, fmt::format("{} {} (see 'dmc disk list')", arg, what));
  }

  for (const DiskView& v : chosen) {
    // Unmount everywhere (newest first); if one refuses, mount the others back.
    Undo undo;
    for (auto m = v.disk.mounts.rbegin(); m != v.disk.mounts.rend(); ++m) {
      if (Status s = ctx.disks().unmount(m->dir); !s.ok()) {
        return failure(ExitCode::kFailed,
                       fmt::format("cannot remove {}: {}{}", v.disk.device, s.error(), undo.run()));
      }
      undo.push("the unmount of " + m->dir, [&ctx, device = v.disk.device, m = *m] {
        return ctx.disks().mount(device, m.dir, m.type);
      });
    }
    undo.commit();
    if (Status s = ctx.disks().detach(v.disk.device); !s.ok()) {
      return failure(ExitCode::kFailed,
                     fmt::format("cannot remove {}: {}", v.disk.device, s.error()));
    }
    const std::string deleted_mark = " (deleted)";
    const bool gone = v.disk.image.size() > deleted_mark.size() &&
                      v.disk.image.compare(v.disk.image.size() - deleted_mark.size(),
                                           deleted_mark.size(), deleted_mark) == 0;
    if (args.has("delete") && !gone) {
      const std::string image = S_ISREG(st.st_mode) ? canonical : v.disk.image;
      if (Status s = ctx.disks().delete_image(image); !s.ok()) {
        return failure(ExitCode::kFailed,
                       fmt::format("{} is detached, but {}", v.disk.device, s.error()));
      }
    }
  }
  return success();
}

}  // namespace diskcond::dmc
