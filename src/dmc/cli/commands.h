// One handler per dmc command. A handler gets words already split by its grammar (command_table)
// and, for commands that change settings, runs only as root. Contract shared by all handlers:
// every value is checked before anything changes (a bad value returns kUsage and touches neither
// the settings store nor the mount machinery); results go to ctx.out; the returned Outcome carries
// the one error line.
#pragma once

#include "dmc/cli/command_args.h"
#include "dmc/cli/context.h"
#include "dmc/cli/exit_code.h"

namespace diskcond::dmc {

Outcome run_list(Context& ctx, const CommandArgs& args);     // list [-json]
Outcome run_predict(Context& ctx, const CommandArgs& args);  // predict [profile] [-json]
Outcome run_show(Context& ctx, const CommandArgs& args);     // show <profile> [-json]
Outcome run_status(Context& ctx, const CommandArgs& args);   // status <mount> [-json]
Outcome run_start(Context& ctx,
                  const CommandArgs& args);  // start <mount> [profile [-boot]] [-nocache] [-force]
Outcome run_stop(Context& ctx, const CommandArgs& args);  // stop <mount> [-force]
Outcome run_sync(Context& ctx, const CommandArgs& args);  // sync <mount>
Outcome run_crash(Context& ctx,
                  const CommandArgs& args);  // crash <mount> [-seed N] [-tear T] [-json]
Outcome run_select(Context& ctx, const CommandArgs& args);  // select <mount> <profile>
Outcome run_configure(
    Context& ctx,
    const CommandArgs& args);  // configure <mount> <type> ... (configure_values.h)
Outcome run_boot(Context& ctx, const CommandArgs& args);    // boot
Outcome run_verify(Context& ctx, const CommandArgs& args);  // verify <mount> [-json] [-quick]
Outcome run_conditioned(Context& ctx,
                        const CommandArgs& args);  // run <dir> <profile> [-writethrough|-nocache]
                                                   // [-faults F] [-crashable] -- <command> ...
                                                   // (commands_run.cc)
Outcome run_fault(Context& ctx,
                  const CommandArgs& args);  // fault add|list|remove|clear|log <mount> ...
                                             // (command_fault.cc)
Outcome run_disk(Context& ctx,
                 const CommandArgs& args);  // disk create|remove|list ... (command_disk.cc)

}  // namespace diskcond::dmc
