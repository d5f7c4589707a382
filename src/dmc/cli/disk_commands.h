// `dmc disk`'s subcommands (command_disk.cc dispatches to them) and what they share. Each gets
// its own words only (the subcommand word removed), already checked against its grammar, and runs
// as root where it needs to.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dmc/cli/command_args.h"
#include "dmc/cli/context.h"
#include "dmc/cli/disk_format.h"
#include "dmc/cli/exit_code.h"

namespace diskcond::dmc {

Outcome run_disk_create(Context& ctx,
                        const CommandArgs& args);  // create <image> <size> [profile] ...
Outcome run_disk_remove(Context& ctx,
                        const CommandArgs& args);  // remove <image|device|dir> [-delete]
Outcome run_disk_list(Context& ctx, const CommandArgs& args);  // list [-json]

// The loop devices whose image lies in a conditioned directory ("dmc disks"), with that directory
// and its profile. `all` gets every bound loop device for callers that must also recognise the
// others (remove says "not a dmc disk" rather than "not found").
Result<std::vector<DiskView>> dmc_disks(Context& ctx, std::vector<disk::LoopDisk>* all = nullptr);

// Steps to undo, run newest first when a later step fails.
class Undo {
 public:
  void push(std::string what, std::function<Status()> step) {
    steps_.push_back({std::move(what), std::move(step)});
  }
  void commit() { steps_.clear(); }
  // Undoes everything pushed. Returns "" when all went well, else "; undoing <what> failed: <why>"
  // for each step that failed (appended to the error line).
  std::string run();

 private:
  struct Step {
    std::string what;
    std::function<Status()> step;
  };
  std::vector<Step> steps_;
};

}  // namespace diskcond::dmc
