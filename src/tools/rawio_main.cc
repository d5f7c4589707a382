// rawio: concurrent raw-I/O benchmark. Parses the command line and dispatches; see rawio(1).
// "rawio report ..." prints saved runs, "rawio compare A B" compares two of them; anything else is
// a run ("rawio [options] target...").
#include <cstdio>

#include "core/one_line.h"
#include "rawio/command.h"
#include "rawio/command_line.h"
#include "rawio/compare/compare_command.h"
#include "rawio/compare/compare_command_line.h"
#include "rawio/report/report_command.h"
#include "rawio/report/report_command_line.h"

namespace {

// Every command line parses to a ParsedLine (cli_rules.h), {action, text, invocation}: print
// help, report a usage error in one line, or run the invocation.
template <class Parsed, class Run>
int dispatch(const Parsed& parsed, Run run) {
  switch (parsed.action) {
    case Parsed::Action::kPrintAndExit:
      std::fputs(parsed.text.c_str(), stdout);
      return diskcond::rawio::kExitOk;
    case Parsed::Action::kUsageError:
      std::fprintf(stderr, "rawio: %s\n", diskcond::one_line(parsed.text).c_str());
      return diskcond::rawio::kExitUsage;
    case Parsed::Action::kRun:
      break;
  }
  return run(parsed.invocation, stdout, stderr);
}

}  // namespace

int main(int argc, char** argv) {
  namespace rawio = diskcond::rawio;
  if (rawio::report::is_report_command(argc, argv)) {
    return dispatch(rawio::report::parse_report_command_line(argc - 1, argv + 1),
                    rawio::report::run_report);
  }
  if (rawio::compare::is_compare_command(argc, argv)) {
    return dispatch(rawio::compare::parse_compare_command_line(argc - 1, argv + 1),
                    rawio::compare::run_compare);
  }
  return dispatch(rawio::parse_command_line(argc, argv), rawio::run_command);
}
