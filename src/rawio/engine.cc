#include "rawio/engine.h"

namespace diskcond::rawio {

// Defined in engine_<name>.cc, each with its name, capabilities and factory.
extern const EngineInfo kPsyncEngine, kIoUringEngine, kLibaioEngine, kNullEngine;

namespace {

// The order of engine_names() and of --help; the first is the default.
const EngineInfo* const kEngines[] = {&kPsyncEngine, &kIoUringEngine, &kLibaioEngine, &kNullEngine};

}  // namespace

std::span<const EngineInfo* const> engines() {
  return kEngines;
}

const EngineInfo& default_engine() {
  return *kEngines[0];
}

const EngineInfo* find_engine(std::string_view name) {
  for (const EngineInfo* e : kEngines) {
    if (e->name == name) return e;
  }
  return nullptr;
}

std::string engine_names() {
  std::string out;
  for (const EngineInfo* e : kEngines) {
    if (!out.empty()) out += ", ";
    out += e->name;
  }
  return out;
}

}  // namespace diskcond::rawio
