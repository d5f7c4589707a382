// dmc disk create <image> <size> [profile] [-start] [-existing] [-mkfs ext4] [-mount <dir>] [-json]
//
// Every value and the state are checked before anything changes; then the steps run in order
// (condition the directory with -start, make the image, attach it, mkfs, mount, autoclear, save
// the directory's settings) and a failing step undoes the ones before it, newest first, so a
// failed create leaves the machine as it found it.
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>

#include "dmc/cli/command_support.h"
#include "dmc/cli/disk_commands.h"
#include "dmc/cli/disk_paths.h"
#include "dmc/cli/json_format.h"

namespace diskcond::dmc {
namespace {

Outcome wrong_state(std::string message) {
  return failure(ExitCode::kWrongState, std::move(message));
}

// What create will do, once the command line and the state have been checked.
struct CreatePlan {
  ImagePath image;
  uint64_t size_bytes = 0;
  std::optional<std::string> file_system;  // -mkfs
  std::optional<std::string> mount_dir;    // -mount
  bool existing = false;
  bool json = false;
  // The conditioned directory that holds the image, or the one -start conditions.
  std::string conditioned_mount;
  std::string profile_name;
  std::optional<StoredMount> start;  // set when -start conditions image.dir first
};

Outcome check_values(Context& ctx, const CommandArgs& args, CreatePlan& plan,
                     std::optional<Profile>& profile) {
  auto image = resolve_image_path(args.positional[0]);
  if (!image.ok()) return usage_error(image.error());
  plan.image = std::move(image).value();
  auto size = parse_disk_size(args.positional[1]);
  if (!size.ok()) return usage_error(size.error());
  plan.size_bytes = *size;
  if (args.positional.size() > 2) {
    auto found = find_profile(ctx, args.positional[2]);
    if (!found.ok()) return usage_error(found.error());
    profile = std::move(found).value();
  }
  if (const std::string* fs = args.value("mkfs")) {
    if (*fs != "ext4")
      return usage_error(fmt::format("cannot make a '{}' file system: -mkfs takes ext4", *fs));
    plan.file_system = *fs;
  }
  if (const std::string* dir = args.value("mount")) {
    auto target = resolve_mount_target(*dir);
    if (!target.ok()) return usage_error(target.error());
    plan.mount_dir = std::move(target).value();
  }
  plan.existing = args.has("existing");
  plan.json = args.has("json");
  if (plan.existing && plan.file_system) {
    return usage_error(
        "-existing attaches the image as it is and -mkfs would erase it; give one of them");
  }
  if (plan.mount_dir &&
      (plan.image.path.rfind(*plan.mount_dir + "/", 0) == 0 || *plan.mount_dir == "/")) {
    return usage_error(fmt::format("-mount {} would hide the image {} (it is inside)",
                                   *plan.mount_dir, plan.image.path));
  }
  if (plan.mount_dir && !plan.file_system && !plan.existing) {
    return usage_error("-mount needs a file system on the new image: add -mkfs ext4");
  }
  return success();
}

Outcome check_state(Context& ctx, const CommandArgs& args, const std::optional<Profile>& profile,
                    CreatePlan& plan, MountState& locked) {
  const ImagePath& image = plan.image;
  if (plan.existing) {
    if (!image.exists)
      return wrong_state(fmt::format(
          "there is no image {} to attach (leave out -existing to create one)", image.path));
    if (image.size_bytes != plan.size_bytes) {
      return wrong_state(
          fmt::format("{} is {} bytes, not {} (-existing attaches an image of the size given)",
                      image.path, image.size_bytes, plan.size_bytes));
    }
  } else if (image.exists) {
    return wrong_state(fmt::format(
        "{} already exists; attach it as it is with -existing, or remove it first", image.path));
  }
  if (plan.mount_dir && is_mount_point(*plan.mount_dir)) {
    return wrong_state(fmt::format("{} is already a mount point", *plan.mount_dir));
  }
  struct stat dir_st {};
  if (::stat(image.dir.c_str(), &dir_st) != 0)
    return failure(ExitCode::kFailed, fmt::format("cannot access {}", image.dir));
  auto holder = find_holding_mount(ctx.mounts(), image.dir, dir_st.st_dev);
  if (!holder.ok()) return failure(ExitCode::kFailed, holder.error());
  if (*holder && !(*holder)->daemon_alive)
    return failure(ExitCode::kStale, stale_mount_message((*holder)->mount_point));
  if (*holder) {
    const mount::MountStatus& held = **holder;
    if (profile && held.settings.profile != *profile) {
      return wrong_state(fmt::format(
          "{} is conditioned as '{}', not '{}': leave out the profile (the disk is its "
          "directory's), or change it first with 'dmc select {} ...'",
          held.mount_point, held.settings.profile.name, profile->name, held.mount_point));
    }
    plan.conditioned_mount = held.mount_point;
    plan.profile_name = held.settings.profile.name;
  } else {
    if (!args.has("start")) {
      return wrong_state(fmt::format(
          "{} is not in a conditioned directory; condition it first ('dmc start {} <profile>'), "
          "or add -start",
          image.path, image.dir));
    }
    Outcome outcome;
    locked = read_mount_state(ctx, image.dir, outcome);
    if (!outcome.ok()) return outcome;
    if (locked.stale()) return failure(ExitCode::kStale, stale_mount_message(image.dir));
    if (!profile && !locked.stored) {
      return wrong_state(fmt::format(
          "no settings stored for {}; name a profile for -start (see 'dmc list')", image.dir));
    }
    StoredMount record;
    record.mount = image.dir;
    record.settings = locked.stored ? locked.stored->settings : mount::MountSettings{};
    if (profile) record.settings = mount::MountSettings{*profile, mount::CacheMode::kPageCache};
    record.boot = false;
    plan.conditioned_mount = image.dir;
    plan.profile_name = record.settings.profile.name;
    plan.start = record;
  }
  if (plan.existing) {
    auto loops = ctx.disks().list();
    if (!loops.ok()) return failure(ExitCode::kFailed, loops.error());
    struct stat st {};
    if (::stat(image.path.c_str(), &st) == 0) {
      for (const disk::LoopDisk& d : *loops) {
        if (d.image_dev == st.st_dev && d.image_ino == st.st_ino) {
          return wrong_state(fmt::format("{} is already attached to {}", image.path, d.device));
        }
      }
    }
  }
  return success();
}

}  // namespace

Outcome run_disk_create(Context& ctx, const CommandArgs& args) {
  CreatePlan plan;
  std::optional<Profile> profile;
  if (Outcome o = check_values(ctx, args, plan, profile); !o.ok()) return o;
  MountState locked;  // the settings store stays locked until the end when -start conditions
  if (Outcome o = check_state(ctx, args, profile, plan, locked); !o.ok()) return o;

  disk::DiskControl& disks = ctx.disks();
  const std::string& image = plan.image.path;
  Undo undo;
  auto failed = [&](const std::string& what) {
    return failure(ExitCode::kFailed,
                   fmt::format("cannot create the disk {}: {}{}", image, what, undo.run()));
  };
  if (plan.start) {
    if (Status s = ctx.mounts().start(plan.start->mount, plan.start->settings); !s.ok()) {
      return failed(fmt::format("cannot condition {}: {}", plan.start->mount, s.error()));
    }
    undo.push("the conditioning of " + plan.start->mount,
              [&ctx, dir = plan.start->mount] { return ctx.mounts().stop(dir, false); });
  }
  if (!plan.existing) {
    if (Status s = disks.create_image(image, plan.size_bytes); !s.ok()) return failed(s.error());
    undo.push("the creation of " + image, [&disks, image] { return disks.delete_image(image); });
  }
  auto attached = disks.attach(image, disk::LoopOptions{});
  if (!attached.ok()) return failed(attached.error());
  const std::string device = attached->device;
  undo.push("the attachment of " + device, [&disks, device] { return disks.detach(device); });
  if (plan.file_system) {
    if (Status s = disks.make_filesystem(device, *plan.file_system); !s.ok())
      return failed(s.error());
  }
  if (plan.mount_dir) {
    std::string type = plan.file_system.value_or("");
    if (type.empty()) {
      auto probed = disks.probe_filesystem(device);
      if (!probed.ok()) return failed(probed.error());
      if (probed->empty()) {
        std::string why = fmt::format(
            "cannot create the disk {}: there is no file system on it to mount (leave out "
            "-mount, or make one with -mkfs ext4 on a new image)",
            image);
        return wrong_state(why + undo.run());
      }
      type = *probed;
    }
    if (Status s = disks.mount(device, *plan.mount_dir, type); !s.ok()) return failed(s.error());
    undo.push("the mount on " + *plan.mount_dir,
              [&disks, dir = *plan.mount_dir] { return disks.unmount(dir); });
    // Mounted, the device goes away with the last unmount, as with `mount -o loop`.
    if (Status s = disks.set_autoclear(device); !s.ok()) return failed(s.error());
  }
  if (plan.start) {
    if (Status s = ctx.store.save(*plan.start); !s.ok())
      return failed(fmt::format("settings store: {}", s.error()));
  }
  undo.commit();

  DiskView view{*attached, plan.conditioned_mount, plan.profile_name};
  auto now = disks.list();  // the device as it is now: mounted, autoclear
  if (now.ok()) {
    auto it = std::find_if(now->begin(), now->end(),
                           [&](const disk::LoopDisk& d) { return d.device == device; });
    if (it != now->end()) view.disk = *it;
  }
  if (plan.json) {
    ctx.out << render_json(disk_create_json(view, plan.file_system, plan.start.has_value()));
  } else {
    ctx.out << device << "\n";
  }
  return success();
}

}  // namespace diskcond::dmc
