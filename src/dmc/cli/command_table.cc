#include "dmc/cli/command_table.h"

#include <string>
#include <vector>

#include "dmc/cli/commands.h"
#include "dmc/cli/configure_values.h"

namespace diskcond::dmc {
namespace {

constexpr std::string_view kStartHelp =
    "Turns conditioning on: mounts a conditioned file system over <mount> in place, so every "
    "program\n"
    "using the directory sees a disk like the profile. Without a profile, applies the settings "
    "stored\n"
    "by 'dmc configure' or 'dmc select'. Needs root, or an ordinary user's own directory: then\n"
    "the mount is theirs alone, made by fusermount3 (needs /dev/fuse mode 0666). Refuses /, "
    "directories on pseudo file "
    "systems\n"
    "(proc, sysfs, devtmpfs, ...) and dmc's own state and run directories and their parents.\n"
    "\n"
    "  -boot          keep <mount> conditioned across reboots (dmc-boot.service runs 'dmc boot');\n"
    "                 warns when nothing will (no systemd, the unit not installed or not enabled)\n"
    "  -writethrough  keep the page cache but make each buffered write(2) wait for the disk\n"
    "                 (like macOS); by default writes are written back later, as Linux does, and\n"
    "                 fsync, sync and full memory pay for them\n"
    "  -nocache       bypass the page cache: every read and write is conditioned, hits included\n"
    "  -force         start even though processes are inside <mount> (their working directory,\n"
    "                 root, open or mapped files): they keep the directory underneath, and their\n"
    "                 I/O is not conditioned; without it, start refuses and names them\n"
    "  -faults <file> start with the fault rules of <file>, one per line in the words of\n"
    "                 'dmc fault add' ('#' comments) or TOML [[rule]] tables; not stored, so\n"
    "                 not re-applied by -boot\n"
    "  -crashable     keep an undo log of what the pretend disk has not made durable, so that\n"
    "                 'dmc crash' can take it back (costs a read of the bytes each buffered\n"
    "                 write replaces); not stored, so not re-applied by -boot\n"
    "\n"
    "Example: sudo dmc start /srv/data 'Slow SSD' -boot\n";

constexpr std::string_view kStopHelp =
    "Turns conditioning off: unmounts the conditioned file system, leaving the directory as it "
    "was,\n"
    "and drops '-boot' persistence. Refuses while files under <mount> are open. For a directory "
    "that\n"
    "no longer exists, forgets its stored settings. Needs root, or the user who started it.\n"
    "\n"
    "  -force  detach a busy mount lazily (it goes away when the last file is closed)\n";

constexpr std::string_view kCrashHelp =
    "A power cut (beyond macOS) on a mount started with -crashable: what the pretend disk had not\n"
    "made durable is lost. In write-back mode that is the data not yet written back (fsync, sync\n"
    "or the model's writeback make it durable) and the namespace changes since the journal's\n"
    "last commit (creations removed, renames and removals undone); in -writethrough and -nocache\n"
    "modes every acknowledged write is durable, and nothing is lost. The mount is then cut off\n"
    "like 'stop -force' (open files get errors) and the directory holds what a disk would after\n"
    "the cut. Prints the seed, the bytes and files lost. Truncates, fallocate and attribute\n"
    "changes are kept (see dmc(1)). Needs root, or the user who made the\n"
    "mount ('dmc run -crashable' by an ordinary user: the command may crash its directory).\n"
    "\n"
    "  -tear none|sector|page  keep a seeded subset of the lost writes' 512-byte sectors or\n"
    "                          4 KiB pages (torn and reordered writes); default none: all lost\n"
    "  -seed N                 the seed of the tearing (default: random, printed)\n"
    "  -json                   machine-readable output\n"
    "\n"
    "Example: sudo dmc crash /srv/data -tear sector -seed 42\n";

constexpr std::string_view kSyncHelp =
    "sync(1) for a conditioned directory (beyond macOS): returns once everything written under\n"
    "<mount> is durable, on the backing disk and on the pretend one. In write-back mode that is\n"
    "what the profile's disk takes to commit the journal, write back every dirty byte and flush\n"
    "its cache; sync(1) and syncfs(2) do not reach a conditioned directory's daemon (libfuse\n"
    "3.14), so use this where a test needs a sync to cost what it would. Any user may sync.\n";

constexpr std::string_view kStatusHelp =
    "Shows whether <mount> is conditioned, its settings, and (beyond macOS) its cache mode, boot\n"
    "persistence and live counters. A directory that is not conditioned shows OFF with the "
    "settings\n"
    "'dmc start' would apply, or zeros. A directory inside a conditioned one reports that one and\n"
    "says so (as do select, configure, stop and verify, which act on it). Works without root.\n"
    "\n"
    "  -json  machine-readable output (schema in docs/dmc.md and dmc(1))\n";

constexpr std::string_view kShowHelp =
    "Shows a profile's settings. Profiles are named by index or by name (any case); 'dmc list'\n"
    "lists them.\n"
    "\n"
    "  -json  machine-readable output\n";

constexpr std::string_view kListHelp =
    "Lists the profiles: the eight built-in ones (macOS's), then user-defined ones from\n"
    "/etc/diskcond/profiles/*.toml and ~/.config/diskcond/profiles/*.toml. Malformed files are\n"
    "reported as warnings on stderr.\n"
    "\n"
    "  -json  machine-readable output\n";

constexpr std::string_view kSelectHelp =
    "Gives <mount> another profile without turning conditioning on or off: a conditioned mount\n"
    "changes at once (no remount); otherwise the next 'dmc start <mount>' applies it. Needs "
    "root,\nor an ordinary user's own directory or mount.\n";

// configure's synopsis, positional names and help: its values' parts come from the profile field
// table (configure_values.h), so that a field with a configure word is in all three.
std::string_view configure_synopsis() {
  static const std::string synopsis = "configure <mount> " + configure_values_synopsis();
  return synopsis;
}

std::vector<std::string_view> configure_positional_names() {
  std::vector<std::string_view> names = {"<mount>"};
  names.insert(names.end(), configure_required_names().begin(), configure_required_names().end());
  return names;
}

constexpr std::string_view kConfigureHelpIntro =
    "Gives <mount> custom settings (profile \"Custom\") without turning conditioning on or off: a\n"
    "conditioned mount changes at once; otherwise the next 'dmc start <mount>' applies them.\n"
    "Needs root, or an ordinary user's own directory or mount.\n"
    "\n";
constexpr std::string_view kConfigureHelpEnd =
    "\n"
    "Optional values may be given from the left; the rest take the defaults.\n"
    "Example: sudo dmc configure /srv/data HDD 12ms 80 60\n";

std::string_view configure_help() {
  static const std::string help =
      std::string(kConfigureHelpIntro) + configure_values_help() + std::string(kConfigureHelpEnd);
  return help;
}

constexpr std::string_view kPredictHelp =
    "Prints what the disk model predicts a profile delivers for the standard workloads: 1 MiB\n"
    "sequential reads and writes at queue depth 1 and 32, 4 KiB random reads at depth 1 and at "
    "the\n"
    "profile's queue depth, 4 KiB random writes at depth 1 (MiB/s for 1 MiB, IOPS for 4 KiB).\n"
    "Without a profile, every profile. Works without root. Beyond macOS.\n"
    "\n"
    "  -json  machine-readable output (bytes per second, IOPS, mean latency in ns)\n";

constexpr std::string_view kVerifyHelp =
    "Measures the conditioned <mount> and compares it with what the disk model predicts for its\n"
    "profile: 1 MiB sequential reads and writes at queue depth 1 and 32, 4 KiB random reads at\n"
    "depth 1 and at the profile's queue depth, 4 KiB random writes at depth 1, 4 s each (the\n"
    "first second is warm-up; longer, up to 30 s, until 200 transfers are measured), O_DIRECT, on "
    "a\n"
    "test file it makes in <mount> and removes (64 MiB; for HDD profiles large enough that a\n"
    "sequential pass does not wrap). Prints prediction, measurement, error and pass/fail within\n"
    "5%; exits 6 when a workload fails. A workload that falls short with at least half of its\n"
    "replies backing-bound (the backing disk, not the profile, timed them; read from the mount's\n"
    "status before and after it) is 'floor', not a failure; so is a QD1 workload no more than\n"
    "5% below an ideal device of the model's speed measured here (without the mount) when that\n"
    "device is itself short: waking a sleeping caller costs this machine too much (with idle\n"
    "CPUs polling if the mount had them poll; run by an ordinary user, then no comparison). Each\n"
    "workload starts after a 'dmc sync' of the mount, so data written before does not take its\n"
    "device time. A workload that would fail short is measured again, up to 3 runs, and the\n"
    "fastest counts (a machine's stalls only slow a run; a run too fast fails). verify changes\n"
    "no setting of the mount. Works without root. Beyond macOS.\n"
    "\n"
    "  -json   machine-readable output (schema in docs/dmc.md)\n"
    "  -quick  2 s per workload instead of 4\n";

constexpr std::string_view kBootHelp =
    "Conditions every mount started with '-boot', with its stored settings. Run at boot by\n"
    "dmc-boot.service; reports each mount on its own line and fails if any mount failed. A mount\n"
    "whose directory no longer exists is skipped with a warning. Needs root.\n";

constexpr std::string_view kRunHelp =
    "Runs <command> with <dir> conditioned like the profile for it and its children only, and\n"
    "gives the directory back when it exits (beyond macOS). Nothing else on the machine sees the\n"
    "conditioned view: the mount is made in a private mount namespace and is gone with it. dmc "
    "exits\n"
    "with the command's status (128 + the signal that ended it, like a shell; 127 when the "
    "command\n"
    "is not found). Works without root: as an ordinary user, in a user namespace of your own that\n"
    "maps only your uid and gid (files keep their owners; needs unprivileged user namespaces and\n"
    "/dev/fuse with mode 0666, as most distributions have it). No settings are stored, and\n"
    "'dmc status <dir>' outside the command says OFF; inside it ($DISKCOND_RUN_DIR is set for it)\n"
    "status, verify and sync see the mount. A working directory inside <dir> is looked up again,\n"
    "so it is the conditioned one. SIGTERM and SIGHUP are passed on to the command; Ctrl-C "
    "reaches\n"
    "it from the terminal.\n"
    "\n"
    "  -writethrough  keep the page cache but make each buffered write(2) wait for the disk\n"
    "  -nocache       bypass the page cache: every read and write is conditioned, hits included\n"
    "  -faults <file> start with the fault rules of <file>, as 'dmc start -faults' (one per line\n"
    "                 in the words of 'dmc fault add', or TOML [[rule]] tables); each rule, with\n"
    "                 the seed dmc picked, is printed on stderr before the command runs\n"
    "  -crashable     keep the undo log 'dmc crash <dir>' needs, as 'dmc start -crashable'; the\n"
    "                 command (or its children) may crash the directory, as may root\n"
    "\n"
    "Example: dmc run ./data 0 -- make test\n"
    "         dmc run ./data 0 -faults faults.toml -crashable -- ./crash-test.sh\n";

constexpr std::string_view kFaultHelp =
    "Fault rules of a conditioned directory, live (beyond macOS): requests that match a rule fail\n"
    "with an errno, read or write half their bytes, read corrupted data or lose their write;\n"
    "bad sectors fail reads until rewritten; the whole device stalls. A rule is words key=value:\n"
    "\n"
    "  path=GLOB     fnmatch(3) on the path inside <mount> (a/b.db); * matches / too; default *\n"
    "  ops=LIST      required: read,write,fsync,open,create,unlink,rename,mkdir,rmdir,setattr or\n"
    "                all (rename: its source path)\n"
    "  range=A-B     read/write only: the request overlaps bytes [A, B) (4096, 4k, 1m)\n"
    "  error=NAME    fail with EIO, ENOSPC, EROFS, EDQUOT, EACCES, EPERM, ENOENT, EEXIST,\n"
    "                ENOTEMPTY, EBUSY, EAGAIN, EINTR, EFBIG, ENOMEM, ENXIO, ENODEV, ETIMEDOUT,\n"
    "                EINVAL, EMFILE, ENAMETOOLONG, ESTALE or EOVERFLOW; or\n"
    "  short         read or write the first half of the bytes (read/write only); or\n"
    "  corrupt[=flip|zero]  ops=read: the reply (its bytes in range=) gets one flipped bit per\n"
    "                512-byte sector (from seed=), or zeros; the file is not touched; or\n"
    "  lost-write    ops=write: acknowledged in full, never stored\n"
    "  every=N       the Nth, 2Nth, ... matching request fails; or\n"
    "  after=N       every matching request after the first N fails; or\n"
    "  p=P [seed=S]  each matching request fails with probability P; the seed (printed when dmc\n"
    "                picks it) gives the same faults in the same order again\n"
    "  window=A-B    only from A to B after the rule was added (500ms, 10s; plain: seconds)\n"
    "Without every=, after= or p=, every matching request fails. Errors are replied at once.\n"
    "\n"
    "Bad sectors (dm-dust): path=GLOB bad=A-B[,C-D...] [sector=512|4096]: reads overlapping a bad\n"
    "range fail with EIO until a write covers it (per file).\n"
    "Stalls: stall=D | stall=MIN-MAX | stall=unbounded [at=T] [period=P [p=P]] [seed=S]: the\n"
    "whole device stops for D, a random time in [MIN, MAX], or until 'dmc fault release'; first\n"
    "T after the rule is added (default now), then every P (each with probability p).\n"
    "\n"
    "add <mount> <rule words>  adds a rule (root) and prints its id and words (with its seed)\n"
    "list <mount> [-json]      the rules, with requests matched and faults injected\n"
    "remove <mount> <id>       removes one rule (root); a stall of it ends\n"
    "clear <mount>             removes every rule (root)\n"
    "release <mount>           ends the stalls in progress (root)\n"
    "log <mount> [-json]       the latest 1000 faults: time, pid, operation, path, bytes, what\n"
    "                          was done, which rule\n"
    "\n"
    "'dmc start <mount> <profile> -faults FILE' starts with the rules of FILE: one per line,\n"
    "'#' comments, or TOML [[rule]] tables. Rules are not stored: a restarted mount has none.\n"
    "Example: sudo dmc fault add /srv/data path=*.db ops=read error=EIO every=2\n";

constexpr std::string_view kDiskHelp =
    "A disk of an image file in a conditioned directory, through a kernel loop device, so a real\n"
    "file system (ext4: page cache, writeback, journal) runs on the conditioned disk. Needs root\n"
    "(list does not). Beyond macOS.\n"
    "\n"
    "create <image> <size>  makes <image> a sparse file of <size> (64m, 4g; a whole number of 4 "
    "KiB\n"
    "    blocks, 1 MiB to 16 TiB), attaches it to a free loop device doing direct I/O (4 KiB "
    "blocks)\n"
    "    and prints the device. <image> must be inside a conditioned directory and must not "
    "exist.\n"
    "  profile         the directory's profile must be this one (the disk is its directory's;\n"
    "                  change it with 'dmc select'); with -start, the profile to condition with\n"
    "  -start          condition the image's directory first if no conditioned directory holds it\n"
    "                  (with the profile, or the settings stored for it); 'dmc stop' ends that\n"
    "  -existing       attach an existing <image> of <size> bytes as it is\n"
    "  -mkfs ext4      make an ext4 file system on it (inode tables and journal written now)\n"
    "  -mount <dir>    mount its file system on <dir>; the device then detaches itself when "
    "unmounted\n"
    "  -json           print the disk as JSON instead of the device\n"
    "remove <image|device|dir>  unmounts the disk everywhere and detaches its loop device\n"
    "  -delete         delete the image file too\n"
    "list  the loop devices whose image is in a conditioned directory\n"
    "  -json           machine-readable output\n"
    "\n"
    "'dmc status', 'select' and 'configure' on the directory holding the image show and change "
    "the\n"
    "disk's conditioning. A step that fails undoes the steps before it.\n"
    "Example: sudo dmc disk create /srv/slow/disk.img 4g 0 -start -mkfs ext4 -mount /mnt/slow\n";

std::vector<CommandSpec> make_table() {
  return {
      {"start",
       "start <mount> [profile_name|profile_index [-boot]] [-nocache] [-force] [-faults <file>] "
       "[-crashable]",
       {"start",
        1,
        2,
        {"boot", "nocache", "writethrough", "force", "crashable"},
        {"<mount>"},
        {"faults"}},
       Who::kOwner,
       run_start,
       kStartHelp},
      {"stop",
       "stop <mount> [-force]",
       {"stop", 1, 1, {"force"}, {"<mount>"}},
       Who::kOwner,
       run_stop,
       kStopHelp},
      {"status",
       "status <mount> [-json]",
       {"status", 1, 1, {"json"}, {"<mount>"}},
       Who::kAnyone,
       run_status,
       kStatusHelp},
      {"show",
       "show profile_name|profile_index [-json]",
       {"show", 1, 1, {"json"}, {"profile_name|profile_index"}},
       Who::kAnyone,
       run_show,
       kShowHelp},
      {"list", "list [-json]", {"list", 0, 0, {"json"}, {}}, Who::kAnyone, run_list, kListHelp},
      {"predict",
       "predict [profile_name|profile_index] [-json]",
       {"predict", 0, 1, {"json"}, {"profile_name|profile_index"}},
       Who::kAnyone,
       run_predict,
       kPredictHelp},
      {"select",
       "select <mount> (profile_name|profile_index)",
       {"select", 2, 2, {}, {"<mount>", "profile_name|profile_index"}},
       Who::kOwner,
       run_select,
       kSelectHelp},
      {"configure",
       configure_synopsis(),
       {"configure",
        1 + configure_min_values(),
        1 + configure_max_values(),
        {},
        configure_positional_names()},
       Who::kOwner,
       run_configure,
       configure_help()},
      {"boot", "boot", {"boot", 0, 0, {}, {}}, Who::kRoot, run_boot, kBootHelp},
      {"verify",
       "verify <mount> [-json] [-quick]",
       {"verify", 1, 1, {"json", "quick"}, {"<mount>"}},
       Who::kAnyone,
       run_verify,
       kVerifyHelp},
      {"sync", "sync <mount>", {"sync", 1, 1, {}, {"<mount>"}}, Who::kAnyone, run_sync, kSyncHelp},
      {"crash",
       "crash <mount> [-tear none|sector|page] [-seed N] [-json]",
       {"crash", 1, 1, {"json"}, {"<mount>"}, {"tear", "seed"}},
       Who::kAnyone,  // root, or the user who made the mount (run_crash checks)
       run_crash,
       kCrashHelp},
      {"run",
       "run <dir> (profile_name|profile_index) [-writethrough|-nocache] [-faults <file>] "
       "[-crashable] -- <command> [args...]",
       {"run",
        2,
        2,
        {"writethrough", "nocache", "crashable"},
        {"<dir>", "profile_name|profile_index"},
        {"faults"},
        true},
       Who::kAnyone,
       run_conditioned,
       kRunHelp},
      {"fault",
       // Six lines: `dmc help` indents each like a command of its own.
       "fault add <mount> <rule words...>\n"
       "  fault list <mount> [-json]\n"
       "  fault remove <mount> <id>\n"
       "  fault clear <mount>\n"
       "  fault release <mount>\n"
       "  fault log <mount> [-json]",
       {"fault", 2, 64, {"json"}, {"add|list|remove|clear|release|log", "<mount>"}},
       Who::kAnyone,
       run_fault,
       kFaultHelp},
      {"disk",
       // Three lines: `dmc help` indents each like a command of its own.
       "disk create <image> <size> [profile] [-start] [-existing] [-mkfs ext4] [-mount <dir>] "
       "[-json]\n"
       "  disk remove <image|device|dir> [-delete]\n"
       "  disk list [-json]",
       {"disk",
        1,
        4,
        {"json", "start", "existing", "delete"},
        {"create|remove|list", "argument"},
        {"mkfs", "mount"}},
       Who::kAnyone,
       run_disk,
       kDiskHelp},
  };
}

}  // namespace

std::span<const CommandSpec> command_table() {
  static const std::vector<CommandSpec> table = make_table();
  return table;
}

const CommandSpec* find_command(std::string_view name) {
  for (const CommandSpec& spec : command_table()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace diskcond::dmc
