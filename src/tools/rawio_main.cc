// rawio: concurrent raw-I/O benchmark. Parses the command line and dispatches; see rawio(1).
#include <cstdio>

#include "rawio/command.h"
#include "rawio/command_line.h"

int main(int argc, char** argv) {
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
