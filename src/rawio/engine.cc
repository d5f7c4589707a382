#include "rawio/engine.h"

namespace diskcond::rawio {
namespace {

const EngineInfo kEngines[] = {
    {"psync", "pread(2)/pwrite(2), one transfer at a time per worker", {true, true},
     make_psync_engine},
    {"io_uring", "io_uring via liburing, --iodepth transfers in flight per worker", {false, true},
     make_io_uring_engine},
    {"libaio", "Linux native AIO (io_submit), needs O_DIRECT to be asynchronous", {false, true},
     make_libaio_engine},
    {"null", "completes every transfer at once without I/O: measures rawio itself", {false, false},
     make_null_engine},
};

}  // namespace

std::span<const EngineInfo> engines() { return kEngines; }

const EngineInfo* find_engine(std::string_view name) {
  for (const auto& e : kEngines) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string engine_names() {
  std::string out;
  for (const auto& e : kEngines) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

}  // namespace diskcond::rawio
