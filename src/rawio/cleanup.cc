#include "rawio/cleanup.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <mutex>

namespace diskcond::rawio {
namespace {

constexpr int kMaxPaths = 16;
constexpr size_t kMaxPathBytes = 4096;

// Slots are written under `table_mutex` with the `used` flag published last, so the signal
// handler (which never locks) only reads complete paths.
struct CleanupSlot {
  char path[kMaxPathBytes];
  std::atomic<bool> used{false};
};
CleanupSlot g_slots[kMaxPaths];
std::mutex g_table_mutex;
std::atomic<bool> g_cancel{false};
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  if (!g_cancel.exchange(true)) {
    g_signal.store(sig);
    return;
  }
  for (auto& slot : g_slots) {
    if (slot.used.load()) ::unlink(slot.path);
  }
  _exit(128 + sig);
}

}  // namespace

bool register_cleanup_path(const std::string& path) {
  if (path.size() >= kMaxPathBytes) return false;
  std::lock_guard lock(g_table_mutex);
  for (auto& slot : g_slots) {
    if (slot.used.load()) continue;
    memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true);
    return true;
  }
  return false;
}

void unregister_cleanup_path(const std::string& path) {
  std::lock_guard lock(g_table_mutex);
  for (auto& slot : g_slots) {
    if (slot.used.load() && path == slot.path) slot.used.store(false);
  }
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

const std::atomic<bool>& cancel_requested() {
  return g_cancel;
}
int cancel_signal() {
  return g_signal.load();
}

}  // namespace diskcond::rawio
