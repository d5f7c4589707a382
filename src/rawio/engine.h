// Engine: how a worker hands transfers to the kernel. One small class per engine, one file each
// (engine_psync.cc, engine_io_uring.cc, engine_libaio.cc, engine_null.cc), all behind this
// interface; the file also states the engine's name, capabilities and factory, once, in its
// EngineInfo. Adding an engine is adding its file and its line in engine.cc. Engines only move
// data: the core (worker.cc) takes every timestamp and keeps every statistic, so all engines are
// measured the same way.
//
// Use per worker, on one thread (the one that calls open(): io_uring binds its ring to it):
// open(), then repeatedly queue() up to `depth` transfers, submit(), and reap() completions; a
// completed transfer's slot may be queued again.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"

namespace diskcond::rawio {

struct Transfer {
  void* buffer;     // aligned for O_DIRECT, `length` bytes
  uint64_t offset;  // bytes from the start of the target
  uint32_t length;
  uint32_t slot;  // caller's tag, returned in the Completion
  bool write;
};

struct Completion {
  uint32_t slot;
  int64_t result;  // bytes transferred, or -errno
};

struct EngineCaps {
  bool synchronous;  // queue() does the I/O itself; queue depth is always 1
  bool moves_data;   // false for the null engine: nothing reaches the target
};

class Engine {
 public:
  virtual ~Engine() = default;

  // Prepares to run at most `depth` transfers at once on `fd`. Returns an error naming the
  // engine and the cause (for example io_uring_queue_init failing).
  virtual Status open(int fd, unsigned depth) = 0;
  // Queues one transfer. REQUIRES: fewer than `depth` transfers queued or in flight.
  virtual void queue(const Transfer& transfer) = 0;
  // Starts every queued transfer, or leaves that to the next reap() so that one system call
  // submits and waits (io_uring). Returns 0 or -errno.
  virtual int submit() = 0;
  // Waits until at least `min` transfers have completed and stores up to out.size() of them.
  // Returns the number stored, or -errno.
  virtual int reap(unsigned min, std::span<Completion> out) = 0;
  // As reap(1, out), but gives up when CLOCK_MONOTONIC reaches `deadline_ns` (what an open-loop
  // worker does while its next transfer is not yet due). Returns the number stored (0 when the
  // deadline came first), or -errno. Engines that complete a transfer in queue() (synchronous
  // ones, null) return at once.
  virtual int reap_until(int64_t deadline_ns, std::span<Completion> out) = 0;
};

// An engine as rawio knows it before making one. Each engine_<name>.cc defines its own, once,
// at namespace scope (`extern const EngineInfo kPsyncEngine{"psync", {...}, make_engine<...>}`);
// engine.cc only puts them in order.
struct EngineInfo {
  std::string_view name;  // what -e takes, what results and saved runs carry
  EngineCaps caps;
  std::unique_ptr<Engine> (*make)();
};

// EngineInfo::make for an engine class.
template <class E>
std::unique_ptr<Engine> make_engine() {
  return std::make_unique<E>();
}

// Every engine rawio knows, psync (the default) first.
std::span<const EngineInfo* const> engines();
// psync.
const EngineInfo& default_engine();
// nullptr if no engine has that name.
const EngineInfo* find_engine(std::string_view name);
// "psync, io_uring, libaio, null".
std::string engine_names();

}  // namespace diskcond::rawio
