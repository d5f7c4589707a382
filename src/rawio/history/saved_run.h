// What rawio --save keeps of one target's run, and what `rawio report` reads back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rawio/run_result.h"

namespace diskcond::rawio::history {

// Where and how a run was made. Filled in by the command (see machine_context()), so tests can
// store known values.
struct RunContext {
  std::string when_utc;      // ISO 8601, e.g. "2026-11-30T06:42:21Z"
  std::string host;          // uname nodename
  std::string kernel;        // uname sysname release, e.g. "Linux 6.1.0-27-amd64"
  std::string engine;        // -e
  std::string options_json;  // the JSON options echo (options_json()), dumped compactly
};

// One stored run: a run id, its context and the target's report (id, target, tests...).
struct SavedRun {
  int64_t run_id = 0;
  RunContext context;
  TargetReport report;
};

// One line of `rawio report --list`.
struct RunSummary {
  int64_t run_id = 0;
  std::string when_utc;
  std::string host;
  std::string target;
  std::string label;               // the row ID
  std::vector<std::string> tests;  // "RR", "SR", ... in run order
};

// This machine now: UTC time, host name and kernel (engine and options are left empty).
RunContext machine_context();

}  // namespace diskcond::rawio::history
