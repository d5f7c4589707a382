// The control protocol between dmc and a mount's daemon: one JSON object per line each way,
// one request per connection.
//
//   {"op":"status"}                              anyone
//   {"op":"update","settings":{...}}             root only (SO_PEERCRED uid 0)
//   {"op":"stop","force":false}                  root only
//   {"op":"fault_add","rule":["path=*.db",...]}  root only; {"ok":true,"id":N}
//   {"op":"fault_list"}                          anyone; {"ok":true,"injected":N,"rules":[{"id":N,
//                                                "rule":[words],"added_ns":T,"matched":N,
//                                                "fired":N,"repaired":N}, ...]}
//   {"op":"fault_remove","id":N}                 root only
//   {"op":"fault_clear"}                         root only
//   {"op":"fault_release"}                       root only; ends the stalls in progress:
//                                                {"ok":true,"released":N}
//   {"op":"fault_log"}                           anyone; {"ok":true,"events":[{"seq":N,"at_ns":T,
//                                                "rule_id":N,"op":"read","path":"a.db","offset":N,
//                                                "length":N,"action":"error"|"short"|"corrupt"|
//                                                "lost-write"|"bad-sector"|"stall","errno":N,
//                                                "done_length":N,"pid":N}, ...]}
//                                                (rules in core/fault_rules.h's words)
//   {"op":"sync"}                                anyone: commits the journal, writes every dirty
//                                                byte back and flushes; the reply says when that is
//                                                done on the daemon's CLOCK_MONOTONIC:
//                                                {"ok":true,"durable_at_ns":N}; -1 while a stall
//                                                until released holds the device (ask again)
//   {"op":"crash","seed":N,"tear":"none"|"sector"|"page"}   root only; a power cut, then the
//                                                mount is gone: {"ok":true,"seed":N,"tear":"..",
//                                                "files":N,"lost_bytes":N,"survived_bytes":N,
//                                                "removed":N,"restored":N,"paths":[..],
//                                                "errors":[..]}
// Replies: {"ok":true, ...} or {"ok":false,"error":"<one line>"}. A status reply carries
// "pid", "uid" (optional), "mount_point", "settings", "crashable" (settings.crashable; optional:
// absent is false),
// "counters" and "diagnostics" (optional). Settings and
// diagnostics use settings_json.h's vocabulary, the one of the settings store and -json output:
//   {"cache":"writeback"|"page_cache"|"no_cache","profile":{<profile object>}}
// A status reply in the keys of a daemon from before that vocabulary ("page", access_time_ns, ...)
// is still read.
// Decoding never throws: malformed input is an Error naming what is wrong.
#pragma once

#include <sys/types.h>

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "core/result.h"
#include "dmc/mount/mount_control.h"

namespace diskcond::mount {

// Longest request or reply line accepted.
constexpr size_t kMaxControlLine = 64 * 1024;

enum class ControlOp {
  kStatus,
  kUpdate,
  kStop,
  kSync,
  kFaultAdd,
  kFaultList,
  kFaultRemove,
  kFaultClear,
  kFaultLog,
  kFaultRelease,
  kCrash
};

struct ControlRequest {
  ControlOp op = ControlOp::kStatus;
  MountSettings settings;  // kUpdate
  bool force = false;      // kStop
  FaultRule rule;          // kFaultAdd
  uint64_t id = 0;         // kFaultRemove
  CrashOptions crash;      // kCrash
};

using Diagnostics = MountDiagnostics;

struct StatusReply {
  pid_t pid = 0;
  // The daemon's effective uid: whose mount it is (root's, or the ordinary user's who started or
  // ran it; an allow_other mount's user_id= says root). Absent from older daemons.
  std::optional<uid_t> uid;
  std::string mount_point;
  MountSettings settings;
  MountCounters counters;
  Diagnostics diagnostics;  // optional on the wire ("diagnostics")
};

std::string encode_request(const ControlRequest& request);
Result<ControlRequest> decode_request(const std::string& line);

std::string encode_ok();
std::string encode_error(const std::string& message);
std::string encode_status(const StatusReply& status);
// Ok() for {"ok":true}, the error message for {"ok":false}, an Error for garbage.
Status decode_ack(const std::string& line);
Result<StatusReply> decode_status(const std::string& line);
std::string encode_synced(int64_t durable_at_ns);
Result<int64_t> decode_synced(const std::string& line);
std::string encode_fault_added(uint64_t id);
Result<uint64_t> decode_fault_added(const std::string& line);
std::string encode_fault_report(const FaultReport& report);
Result<FaultReport> decode_fault_report(const std::string& line);
std::string encode_released(uint64_t released);
Result<uint64_t> decode_released(const std::string& line);
std::string encode_fault_log(const std::vector<FaultEvent>& events);
Result<std::vector<FaultEvent>> decode_fault_log(const std::string& line);
// The report's fields, in the order dmc crash -json prints them after "mount": seed, tear, files,
// lost_bytes, survived_bytes, removed, restored, paths, errors. The crash reply is these and "ok".
nlohmann::ordered_json crash_report_json(const CrashReport& report);
std::string encode_crash_report(const CrashReport& report);
Result<CrashReport> decode_crash_report(const std::string& line);

}  // namespace diskcond::mount
