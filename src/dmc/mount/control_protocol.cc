#include "dmc/mount/control_protocol.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "dmc/mount/settings_json.h"

namespace diskcond::mount {
namespace {

using json = nlohmann::ordered_json;

json settings_to_json(const MountSettings& s) {
  json j = json::object();
  j["cache"] = std::string(cache_mode_name(s.cache));
  j["profile"] = profile_to_json(s.profile);
  return j;
}

// Reads an unsigned/signed integer field without throwing.
template <class T>
Status read_int(const json& obj, const char* key, T& out) {
  auto it = obj.find(key);
  if (it == obj.end()) return make_error(std::string("missing field '") + key + "'");
  if (!it->is_number_integer())
    return make_error(std::string("field '") + key + "' is not an integer");
  if constexpr (std::is_unsigned_v<T>) {
    if (!it->is_number_unsigned())
      return make_error(std::string("field '") + key + "' is negative");
    uint64_t v = it->get<uint64_t>();
    if (v > std::numeric_limits<T>::max())
      return make_error(std::string("field '") + key + "' is too large");
    out = static_cast<T>(v);
  } else {
    out = static_cast<T>(it->get<int64_t>());
  }
  return ok_status();
}

Status read_string(const json& obj, const char* key, std::string& out) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string())
    return make_error(std::string("field '") + key + "' must be a string");
  out = it->get<std::string>();
  return ok_status();
}

#define TRY(expr)                           \
  do {                                      \
    auto _s = (expr);                       \
    if (!_s.ok()) return Error{_s.error()}; \
  } while (0)

// A daemon started by a dmc from before the one vocabulary (issue 14) says "page"/"none" and
// access_time_ns, read_bytes_per_sec, write_bytes_per_sec, queue_depth, spinup_ns: rewritten to
// today's keys so that the new dmc still reads its status.
void upgrade_old_settings(json& j) {
  if (auto cache = j.find("cache"); cache != j.end() && cache->is_string()) {
    if (*cache == "page") *cache = "page_cache";
    if (*cache == "none") *cache = "no_cache";
  }
  auto p = j.find("profile");
  if (p == j.end() || !p->is_object() || !p->contains("access_time_ns")) return;
  const std::pair<const char*, const char*> renamed[] = {
      {"read_bytes_per_sec", "read_throughput_bytes_per_sec"},
      {"write_bytes_per_sec", "write_throughput_bytes_per_sec"},
      {"queue_depth", "io_queue_depth"},
      {"spinup_ns", "spinup_time_ns"}};
  for (auto [old_key, key] : renamed) {
    if (auto v = p->find(old_key); v != p->end()) {
      (*p)[key] = *v;
      p->erase(old_key);
    }
  }
  json ns = (*p)["access_time_ns"];
  p->erase("access_time_ns");
  if (ns.is_number_unsigned() && ns.get<uint64_t>() % 1000 == 0) {
    (*p)["access_time_us"] = ns.get<uint64_t>() / 1000;
  } else if (ns.is_number()) {
    (*p)["access_time_us"] = ns.get<double>() / 1000;
  } else {
    (*p)["access_time_us"] = ns;
  }
}

Result<MountSettings> settings_from_json(const json& j) {
  if (!j.is_object()) return make_error("settings must be an object");
  MountSettings s;
  std::string cache;
  TRY(read_string(j, "cache", cache));
  auto mode = parse_cache_mode_name(cache);
  if (!mode.ok()) return make_error(mode.error());
  s.cache = *mode;
  auto pit = j.find("profile");
  if (pit == j.end() || !pit->is_object()) return make_error("settings.profile must be an object");
  auto profile = profile_from_json(*pit);
  if (!profile.ok()) return make_error(profile.error());
  s.profile = std::move(profile).value();
  return s;
}

json counters_to_json(const MountCounters& c) {
  return json{{"commands", {c.commands[0], c.commands[1], c.commands[2]}},
              {"bytes", {c.bytes[0], c.bytes[1], c.bytes[2]}},
              {"mean_added_delay_ns", c.mean_added_delay_ns},
              {"queue_occupancy", c.queue_occupancy},
              {"floor_read_ns", c.floor_read_ns},
              {"floor_write_ns", c.floor_write_ns},
              {"files_mapped", c.files_mapped},
              {"files_hashed", c.files_hashed},
              {"files_linear", c.files_linear},
              {"metadata_reads", c.metadata_reads},
              {"directory_reads", c.directory_reads},
              {"written_page_reads", c.written_page_reads},
              {"fault_rules", c.fault_rules},
              {"faults_injected", c.faults_injected},
              {"stall_active", c.stall_active},
              {"stalled_ns", c.stalled_ns}};
}

Result<MountCounters> counters_from_json(const json& j) {
  MountCounters c;
  if (!j.is_object()) return make_error("counters must be an object");
  for (const char* key : {"commands", "bytes"}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_array() || it->size() != 3) {
      return make_error(std::string("counters.") + key + " must be an array of 3");
    }
    for (size_t i = 0; i < 3; ++i) {
      if (!(*it)[i].is_number_unsigned())
        return make_error(std::string("counters.") + key + " holds a non-count");
      (key[0] == 'c' ? c.commands : c.bytes)[i] = (*it)[i].get<uint64_t>();
    }
  }
  for (auto [key, out] : {std::pair{"mean_added_delay_ns", &c.mean_added_delay_ns},
                          std::pair{"floor_read_ns", &c.floor_read_ns},
                          std::pair{"floor_write_ns", &c.floor_write_ns}}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number())
      return make_error(std::string("counters.") + key + " must be a number");
    *out = it->get<double>();
  }
  TRY(read_int(j, "queue_occupancy", c.queue_occupancy));
  // Absent from daemons older than the layout: read when present.
  for (auto [key, out] :
       {std::pair{"files_mapped", &c.files_mapped}, std::pair{"files_hashed", &c.files_hashed},
        std::pair{"files_linear", &c.files_linear}, std::pair{"metadata_reads", &c.metadata_reads},
        std::pair{"directory_reads", &c.directory_reads},
        std::pair{"written_page_reads", &c.written_page_reads},
        std::pair{"fault_rules", &c.fault_rules}, std::pair{"faults_injected", &c.faults_injected},
        std::pair{"stall_active", &c.stall_active}, std::pair{"stalled_ns", &c.stalled_ns}}) {
    if (j.contains(key)) TRY(read_int(j, key, *out));
  }
  return c;
}

// A rule as its words (core/fault_rules.h), parsed again on the way in: never trusted as sent.
json rule_to_json(const FaultRule& rule) {
  return json(format_fault_rule(rule));
}

Result<FaultRule> rule_from_json(const json& j) {
  if (!j.is_array()) return make_error("a rule must be an array of words");
  std::vector<std::string> words;
  for (const json& w : j) {
    if (!w.is_string()) return make_error("a rule's words must be strings");
    words.push_back(w.get<std::string>());
  }
  return parse_fault_rule(words);
}

// Each request's "op", as the wire spells it.
struct OpName {
  ControlOp op;
  const char* name;
};
constexpr OpName kOpNames[] = {
    {ControlOp::kStatus, "status"},
    {ControlOp::kUpdate, "update"},
    {ControlOp::kStop, "stop"},
    {ControlOp::kSync, "sync"},
    {ControlOp::kFaultAdd, "fault_add"},
    {ControlOp::kFaultList, "fault_list"},
    {ControlOp::kFaultRemove, "fault_remove"},
    {ControlOp::kFaultClear, "fault_clear"},
    {ControlOp::kFaultLog, "fault_log"},
    {ControlOp::kFaultRelease, "fault_release"},
    {ControlOp::kCrash, "crash"},
};

static_assert(std::size(kOpNames) == static_cast<size_t>(ControlOp::kCrash) + 1,
              "every ControlOp has its name");

const char* op_name(ControlOp op) {
  for (const OpName& n : kOpNames)
    if (n.op == op) return n.name;
  return "?";
}

Result<json> parse_object(const std::string& line) {
  if (line.size() > kMaxControlLine) return make_error("message too long");
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error("malformed JSON");
  if (!j.is_object()) return make_error("message must be a JSON object");
  return j;
}

// A reply as its object, once decode_ack() has accepted it.
Result<json> acked_object(const std::string& line) {
  auto ack = decode_ack(line);
  if (!ack.ok()) return Error{ack.error()};
  return *parse_object(line);
}

// The replies carrying one whole number, {"ok":true,"<key>":N}.
template <class T>
std::string encode_number(const char* key, T value) {
  return json{{"ok", true}, {key, value}}.dump() + "\n";
}

template <class T>
Result<T> decode_number(const std::string& line, const char* key) {
  auto j = acked_object(line);
  if (!j.ok()) return Error{j.error()};
  T value = 0;
  TRY(read_int(*j, key, value));
  return value;
}

}  // namespace

std::string encode_request(const ControlRequest& r) {
  json j{{"op", op_name(r.op)}};
  switch (r.op) {  // the arguments of the ops that take some
    case ControlOp::kUpdate:
      j["settings"] = settings_to_json(r.settings);
      break;
    case ControlOp::kStop:
      j["force"] = r.force;
      break;
    case ControlOp::kFaultAdd:
      j["rule"] = rule_to_json(r.rule);
      break;
    case ControlOp::kFaultRemove:
      j["id"] = r.id;
      break;
    case ControlOp::kCrash:
      j["seed"] = r.crash.seed;
      j["tear"] = tear_name(r.crash.tear);
      break;
    default:
      break;
  }
  return j.dump() + "\n";
}

Result<ControlRequest> decode_request(const std::string& line) {
  auto parsed = parse_object(line);
  if (!parsed.ok()) return Error{parsed.error()};
  const json& j = *parsed;
  std::string op;
  TRY(read_string(j, "op", op));
  ControlRequest r;
  const auto named = std::find_if(std::begin(kOpNames), std::end(kOpNames),
                                  [&](const OpName& n) { return op == n.name; });
  if (named == std::end(kOpNames)) return make_error("unknown op '" + op + "'");
  r.op = named->op;
  switch (r.op) {
    case ControlOp::kUpdate: {
      auto it = j.find("settings");
      if (it == j.end()) return make_error("update needs settings");
      auto s = settings_from_json(*it);
      if (!s.ok()) return Error{s.error()};
      r.settings = *s;
      break;
    }
    case ControlOp::kFaultAdd: {
      auto rule = rule_from_json(j.value("rule", json()));
      if (!rule.ok()) return Error{"fault_add: " + rule.error()};
      r.rule = std::move(rule).value();
      break;
    }
    case ControlOp::kFaultRemove:
      TRY(read_int(j, "id", r.id));
      break;
    case ControlOp::kCrash: {
      std::string tear;
      TRY(read_int(j, "seed", r.crash.seed));
      TRY(read_string(j, "tear", tear));
      auto parsed_tear = parse_tear(tear);
      if (!parsed_tear.ok()) return Error{parsed_tear.error()};
      r.crash.tear = *parsed_tear;
      break;
    }
    case ControlOp::kStop:
      if (auto it = j.find("force"); it != j.end()) {
        if (!it->is_boolean()) return make_error("force must be true or false");
        r.force = it->get<bool>();
      }
      break;
    default:
      break;  // no arguments
  }
  return r;
}

std::string encode_ok() {
  return json{{"ok", true}}.dump() + "\n";
}

std::string encode_error(const std::string& message) {
  return json{{"ok", false}, {"error", message}}.dump() + "\n";
}

std::string encode_status(const StatusReply& s) {
  json j{{"ok", true},
         {"pid", s.pid},
         {"mount_point", s.mount_point},
         {"settings", settings_to_json(s.settings)},
         {"crashable", s.settings.crashable},
         {"counters", counters_to_json(s.counters)},
         {"diagnostics", diagnostics_to_json(s.diagnostics, /*documented_only=*/false)}};
  if (s.uid) j["uid"] = *s.uid;
  return j.dump() + "\n";
}

std::string encode_synced(int64_t durable_at_ns) {
  return encode_number("durable_at_ns", durable_at_ns);
}

Result<int64_t> decode_synced(const std::string& line) {
  return decode_number<int64_t>(line, "durable_at_ns");
}

std::string encode_fault_added(uint64_t id) {
  return encode_number("id", id);
}

Result<uint64_t> decode_fault_added(const std::string& line) {
  return decode_number<uint64_t>(line, "id");
}

std::string encode_fault_report(const FaultReport& report) {
  json rules = json::array();
  for (const FaultRuleState& s : report.rules) {
    rules.push_back(json{{"id", s.id},
                         {"rule", rule_to_json(s.rule)},
                         {"added_ns", s.added_ns},
                         {"matched", s.matched},
                         {"fired", s.fired},
                         {"repaired", s.repaired}});
  }
  return json{{"ok", true}, {"injected", report.injected}, {"rules", rules}}.dump() + "\n";
}

Result<FaultReport> decode_fault_report(const std::string& line) {
  auto object = acked_object(line);
  if (!object.ok()) return Error{object.error()};
  const json j = std::move(*object);
  FaultReport report;
  TRY(read_int(j, "injected", report.injected));
  auto rules = j.find("rules");
  if (rules == j.end() || !rules->is_array()) return make_error("bad fault list from daemon");
  for (const json& r : *rules) {
    if (!r.is_object()) return make_error("bad fault list from daemon");
    FaultRuleState s;
    TRY(read_int(r, "id", s.id));
    TRY(read_int(r, "added_ns", s.added_ns));
    TRY(read_int(r, "matched", s.matched));
    TRY(read_int(r, "fired", s.fired));
    if (r.contains("repaired")) TRY(read_int(r, "repaired", s.repaired));
    auto rule = rule_from_json(r.value("rule", json()));
    if (!rule.ok()) return Error{"bad fault list from daemon: " + rule.error()};
    s.rule = std::move(rule).value();
    report.rules.push_back(std::move(s));
  }
  return report;
}

std::string encode_released(uint64_t released) {
  return encode_number("released", released);
}

Result<uint64_t> decode_released(const std::string& line) {
  return decode_number<uint64_t>(line, "released");
}

std::string encode_fault_log(const std::vector<FaultEvent>& events) {
  json list = json::array();
  for (const FaultEvent& e : events) {
    list.push_back(json{
        {"seq", e.seq},
        {"at_ns", e.at_ns},
        {"rule_id", e.rule_id},
        {"op", e.action == FaultAction::kStall ? std::string() : std::string(fault_op_name(e.op))},
        {"path", e.path},
        {"offset", e.offset},
        {"length", e.length},
        {"action", std::string(fault_action_name(e.action))},
        {"errno", e.error},
        {"done_length", e.done_length},
        {"pid", e.pid}});
  }
  return json{{"ok", true}, {"events", list}}.dump() + "\n";
}

Result<std::vector<FaultEvent>> decode_fault_log(const std::string& line) {
  auto object = acked_object(line);
  if (!object.ok()) return Error{object.error()};
  const json j = std::move(*object);
  auto events = j.find("events");
  if (events == j.end() || !events->is_array()) return make_error("bad fault log from daemon");
  std::vector<FaultEvent> out;
  for (const json& e : *events) {
    if (!e.is_object()) return make_error("bad fault log from daemon");
    FaultEvent event;
    std::string op, action;
    TRY(read_int(e, "seq", event.seq));
    TRY(read_int(e, "at_ns", event.at_ns));
    TRY(read_int(e, "rule_id", event.rule_id));
    TRY(read_string(e, "op", op));
    TRY(read_string(e, "path", event.path));
    TRY(read_int(e, "offset", event.offset));
    TRY(read_int(e, "length", event.length));
    TRY(read_string(e, "action", action));
    TRY(read_int(e, "errno", event.error));
    TRY(read_int(e, "done_length", event.done_length));
    TRY(read_int(e, "pid", event.pid));
    auto parsed_action = fault_action_from_name(action);
    if (!parsed_action.ok() || *parsed_action == FaultAction::kNone)
      return make_error("bad fault log from daemon: action '" + action + "'");
    event.action = *parsed_action;
    if (event.action != FaultAction::kStall) {
      auto parsed_op = fault_op_from_name(op);
      if (!parsed_op.ok()) return Error{"bad fault log from daemon: " + parsed_op.error()};
      event.op = *parsed_op;
    }
    out.push_back(std::move(event));
  }
  return out;
}

Status decode_ack(const std::string& line) {
  auto parsed = parse_object(line);
  if (!parsed.ok()) return Error{"bad reply from daemon: " + parsed.error()};
  const json& j = *parsed;
  auto ok = j.find("ok");
  if (ok == j.end() || !ok->is_boolean()) return make_error("bad reply from daemon: no 'ok'");
  if (ok->get<bool>()) return ok_status();
  std::string message = "daemon refused";
  static_cast<void>(read_string(j, "error", message));
  return make_error(message);
}

Result<StatusReply> decode_status(const std::string& line) {
  auto object = acked_object(line);
  if (!object.ok()) return Error{object.error()};
  json j = std::move(*object);
  if (auto settings = j.find("settings"); settings != j.end() && settings->is_object())
    upgrade_old_settings(*settings);
  StatusReply s;
  TRY(read_int(j, "pid", s.pid));
  if (j.contains("uid")) {
    uid_t uid = 0;
    TRY(read_int(j, "uid", uid));
    s.uid = uid;
  }
  TRY(read_string(j, "mount_point", s.mount_point));
  auto settings = settings_from_json(j.value("settings", json()));
  if (!settings.ok()) return Error{"bad status from daemon: " + settings.error()};
  s.settings = *settings;
  // A daemon from before -crashable was reported says nothing: it keeps no undo log.
  if (auto c = j.find("crashable"); c != j.end() && c->is_boolean())
    s.settings.crashable = c->get<bool>();
  auto counters = counters_from_json(j.value("counters", json()));
  if (!counters.ok()) return Error{"bad status from daemon: " + counters.error()};
  s.counters = *counters;
  if (auto d = j.find("diagnostics"); d != j.end()) s.diagnostics = diagnostics_from_json(*d);
  return s;
}

nlohmann::ordered_json crash_report_json(const CrashReport& r) {
  return {{"seed", r.seed},
          {"tear", tear_name(r.tear)},
          {"files", r.files},
          {"lost_bytes", r.lost_bytes},
          {"survived_bytes", r.survived_bytes},
          {"removed", r.removed},
          {"restored", r.restored},
          {"paths", r.paths},
          {"errors", r.errors}};
}

std::string encode_crash_report(const CrashReport& r) {
  json reply{{"ok", true}};
  reply.update(crash_report_json(r));
  return reply.dump() + "\n";
}

Result<CrashReport> decode_crash_report(const std::string& line) {
  auto object = acked_object(line);
  if (!object.ok()) return Error{object.error()};
  const json j = std::move(*object);
  CrashReport r;
  std::string tear;
  TRY(read_int(j, "seed", r.seed));
  TRY(read_string(j, "tear", tear));
  TRY(read_int(j, "files", r.files));
  TRY(read_int(j, "lost_bytes", r.lost_bytes));
  TRY(read_int(j, "survived_bytes", r.survived_bytes));
  TRY(read_int(j, "removed", r.removed));
  TRY(read_int(j, "restored", r.restored));
  auto parsed = parse_tear(tear);
  if (!parsed.ok()) return Error{"bad crash report from daemon: " + parsed.error()};
  r.tear = *parsed;
  for (const char* key : {"paths", "errors"}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_array()) return make_error("bad crash report from daemon");
    for (const json& p : *it) {
      if (!p.is_string()) return make_error("bad crash report from daemon");
      (std::string(key) == "paths" ? r.paths : r.errors).push_back(p.get<std::string>());
    }
  }
  return r;
}

}  // namespace diskcond::mount
