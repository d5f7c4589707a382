// rawio: concurrent raw-I/O benchmark. Parses the command line and dispatches; see rawio(1).
// "rawio report ..." prints saved runs; anything else is a run ("rawio [options] target...").
#include <cstdio>

#include "rawio/command.h"
#include "rawio/command_line.h"
#include "rawio/report/report_command.h"
#include "rawio/report/report_command_line.h"

namespace {

int report_main(int argc, char** argv) {
  using diskcond::rawio::report::ParsedReportCommandLine;
  ParsedReportCommandLine parsed = diskcond::rawio::report::parse_report_command_line(argc, argv);
  switch (parsed.action) {
    case ParsedReportCommandLine::Action::kPrintAndExit:
      std::fputs(parsed.text.c_str(), stdout);
      return diskcond::rawio::kExitOk;
    case ParsedReportCommandLine::Action::kUsageError:
      std::fprintf(stderr, "rawio: %s\n", parsed.text.c_str());
      return diskcond::rawio::kExitUsage;
    case ParsedReportCommandLine::Action::kRun:
      break;
  }
  return diskcond::rawio::report::run_report(parsed.invocation, stdout, stderr);
}

}  // namespace

int main(int argc, char** argv) {
  if (diskcond::rawio::report::is_report_command(argc, argv)) return report_main(argc - 1, argv + 1);
  using diskcond::rawio::ParsedCommandLine;
  ParsedCommandLine parsed = diskcond::rawio::parse_command_line(argc, argv);
  switch (parsed.action) {
    case ParsedCommandLine::Action::kPrintAndExit:
      std::fputs(parsed.text.c_str(), stdout);
      return diskcond::rawio::kExitOk;
    case ParsedCommandLine::Action::kUsageError:
      std::fprintf(stderr, "rawio: %s\n", parsed.text.c_str());
      return diskcond::rawio::kExitUsage;
    case ParsedCommandLine::Action::kRun:
      break;
  }
  return diskcond::rawio::run_command(parsed.invocation, stdout, stderr);
}
