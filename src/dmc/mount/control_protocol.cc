#include "dmc/mount/control_protocol.h"

#include <nlohmann/json.hpp>

namespace diskcond::mount {
namespace {

using nlohmann::json;

json settings_to_json(const MountSettings& s) {
  const Profile& p = s.profile;
  const char* cache = s.cache == CacheMode::kNoCache     ? "none"
                      : s.cache == CacheMode::kPageCache ? "page"
                                                         : "writeback";
  return json{{"cache", cache},
              {"profile",
               {{"name", p.name},
                {"type", std::string(to_string(p.type))},
                {"access_time_ns", p.access_time_ns},
                {"read_bytes_per_sec", p.read_bytes_per_sec},
                {"write_bytes_per_sec", p.write_bytes_per_sec},
                {"queue_depth", p.queue_depth},
                {"max_read_bytes", p.max_read_bytes},
                {"max_write_bytes", p.max_write_bytes},
                {"max_read_segments", p.max_read_segments},
                {"max_write_segments", p.max_write_segments},
                {"spinup_idle_ns", p.spinup_idle_ns},
                {"spinup_ns", p.spinup_ns}}}};
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

Result<MountSettings> settings_from_json(const json& j) {
  if (!j.is_object()) return make_error("settings must be an object");
  MountSettings s;
  std::string cache;
  TRY(read_string(j, "cache", cache));
  if (cache == "writeback") {
    s.cache = CacheMode::kWriteBack;
  } else if (cache == "page") {
    s.cache = CacheMode::kPageCache;
  } else if (cache == "none") {
    s.cache = CacheMode::kNoCache;
  } else {
    return make_error("cache must be \"writeback\", \"page\" or \"none\"");
  }
  auto pit = j.find("profile");
  if (pit == j.end() || !pit->is_object()) return make_error("settings.profile must be an object");
  const json& pj = *pit;
  Profile& p = s.profile;
  std::string type;
  TRY(read_string(pj, "name", p.name));
  TRY(read_string(pj, "type", type));
  auto t = parse_disk_type(type);
  if (!t.ok()) return make_error(t.error());
  p.type = *t;
  TRY(read_int(pj, "access_time_ns", p.access_time_ns));
  TRY(read_int(pj, "read_bytes_per_sec", p.read_bytes_per_sec));
  TRY(read_int(pj, "write_bytes_per_sec", p.write_bytes_per_sec));
  TRY(read_int(pj, "queue_depth", p.queue_depth));
  TRY(read_int(pj, "max_read_bytes", p.max_read_bytes));
  TRY(read_int(pj, "max_write_bytes", p.max_write_bytes));
  TRY(read_int(pj, "max_read_segments", p.max_read_segments));
  TRY(read_int(pj, "max_write_segments", p.max_write_segments));
  TRY(read_int(pj, "spinup_idle_ns", p.spinup_idle_ns));
  TRY(read_int(pj, "spinup_ns", p.spinup_ns));
  auto valid = validate(p);
  if (!valid.ok()) return make_error(valid.error());
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
              {"metadata_reads", c.metadata_reads}};
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
  for (auto [key, out] : {std::pair{"files_mapped", &c.files_mapped},
                          std::pair{"files_hashed", &c.files_hashed},
                          std::pair{"files_linear", &c.files_linear},
                          std::pair{"metadata_reads", &c.metadata_reads}}) {
    if (j.contains(key)) TRY(read_int(j, key, *out));
  }
  return c;
}

Result<json> parse_object(const std::string& line) {
  if (line.size() > kMaxControlLine) return make_error("message too long");
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error("malformed JSON");
  if (!j.is_object()) return make_error("message must be a JSON object");
  return j;
}

}  // namespace

std::string encode_request(const ControlRequest& r) {
  json j;
  switch (r.op) {
    case ControlOp::kStatus:
      j = {{"op", "status"}};
      break;
    case ControlOp::kUpdate:
      j = {{"op", "update"}, {"settings", settings_to_json(r.settings)}};
      break;
    case ControlOp::kStop:
      j = {{"op", "stop"}, {"force", r.force}};
      break;
    case ControlOp::kSync:
      j = {{"op", "sync"}};
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
  if (op == "status") {
    r.op = ControlOp::kStatus;
  } else if (op == "update") {
    r.op = ControlOp::kUpdate;
    auto it = j.find("settings");
    if (it == j.end()) return make_error("update needs settings");
    auto s = settings_from_json(*it);
    if (!s.ok()) return Error{s.error()};
    r.settings = *s;
  } else if (op == "sync") {
    r.op = ControlOp::kSync;
  } else if (op == "stop") {
    r.op = ControlOp::kStop;
    auto it = j.find("force");
    if (it != j.end()) {
      if (!it->is_boolean()) return make_error("force must be true or false");
      r.force = it->get<bool>();
    }
  } else {
    return make_error("unknown op '" + op + "'");
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
  return json{{"ok", true},
              {"pid", s.pid},
              {"mount_point", s.mount_point},
              {"settings", settings_to_json(s.settings)},
              {"counters", counters_to_json(s.counters)},
              {"diagnostics",
               {{"backing_bound_replies", s.diagnostics.backing_bound_replies},
                {"backing_bound_mean_excess_ns", s.diagnostics.backing_bound_mean_excess_ns},
                {"wake_ahead_ns", s.diagnostics.wake_ahead_ns},
                {"max_lateness_ns", s.diagnostics.max_lateness_ns},
                {"transit_lead_read_ns", s.diagnostics.transit_lead_read_ns},
                {"transit_lead_write_ns", s.diagnostics.transit_lead_write_ns},
                {"lateness_replies", s.diagnostics.lateness_replies},
                {"lateness_early_replies", s.diagnostics.lateness_early_replies},
                {"lateness_p50_ns", s.diagnostics.lateness_p50_ns},
                {"lateness_p90_ns", s.diagnostics.lateness_p90_ns},
                {"lateness_p99_ns", s.diagnostics.lateness_p99_ns},
                {"lateness_p999_ns", s.diagnostics.lateness_p999_ns},
                {"lateness_max_ns", s.diagnostics.lateness_max_ns}}}}
             .dump() +
         "\n";
}

std::string encode_synced(int64_t durable_at_ns) {
  return json{{"ok", true}, {"durable_at_ns", durable_at_ns}}.dump() + "\n";
}

Result<int64_t> decode_synced(const std::string& line) {
  auto ack = decode_ack(line);
  if (!ack.ok()) return Error{ack.error()};
  int64_t at = 0;
  TRY(read_int(*parse_object(line), "durable_at_ns", at));
  return at;
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
  auto ack = decode_ack(line);
  if (!ack.ok()) return Error{ack.error()};
  const json j = *parse_object(line);
  StatusReply s;
  TRY(read_int(j, "pid", s.pid));
  TRY(read_string(j, "mount_point", s.mount_point));
  auto settings = settings_from_json(j.value("settings", json()));
  if (!settings.ok()) return Error{"bad status from daemon: " + settings.error()};
  s.settings = *settings;
  auto counters = counters_from_json(j.value("counters", json()));
  if (!counters.ok()) return Error{"bad status from daemon: " + counters.error()};
  s.counters = *counters;
  auto d = j.find("diagnostics");
  if (d != j.end() && d->is_object()) {
    static_cast<void>(read_int(*d, "backing_bound_replies", s.diagnostics.backing_bound_replies));
    static_cast<void>(read_int(*d, "wake_ahead_ns", s.diagnostics.wake_ahead_ns));
    static_cast<void>(read_int(*d, "transit_lead_read_ns", s.diagnostics.transit_lead_read_ns));
    static_cast<void>(read_int(*d, "transit_lead_write_ns", s.diagnostics.transit_lead_write_ns));
    static_cast<void>(read_int(*d, "max_lateness_ns", s.diagnostics.max_lateness_ns));
    Diagnostics& g = s.diagnostics;
    static_cast<void>(read_int(*d, "lateness_replies", g.lateness_replies));
    static_cast<void>(read_int(*d, "lateness_early_replies", g.lateness_early_replies));
    static_cast<void>(read_int(*d, "lateness_p50_ns", g.lateness_p50_ns));
    static_cast<void>(read_int(*d, "lateness_p90_ns", g.lateness_p90_ns));
    static_cast<void>(read_int(*d, "lateness_p99_ns", g.lateness_p99_ns));
    static_cast<void>(read_int(*d, "lateness_p999_ns", g.lateness_p999_ns));
    static_cast<void>(read_int(*d, "lateness_max_ns", g.lateness_max_ns));
    auto excess = d->find("backing_bound_mean_excess_ns");
    if (excess != d->end() && excess->is_number()) {
      s.diagnostics.backing_bound_mean_excess_ns = excess->get<double>();
    }
  }
  return s;
}

}  // namespace diskcond::mount
