// Files rawio made, removed on the way out even when a signal ends the run.
//
// install_signal_handlers(): the first SIGINT or SIGTERM sets cancel_requested() (workers finish
// their transfers in flight, rawio removes its files and exits 128 + signal); a second one removes
// the registered files at once from the handler (unlink is async-signal-safe) and _exits.
#pragma once

#include <atomic>
#include <string>

namespace diskcond::rawio {

// Remembers a path to unlink if rawio is killed by a second signal. Up to 16 paths; returns false
// if the table is full (the path is then only removed on the normal way out).
bool register_cleanup_path(const std::string& path);
void unregister_cleanup_path(const std::string& path);

void install_signal_handlers();
// True once SIGINT or SIGTERM arrived.
const std::atomic<bool>& cancel_requested();
// The signal that set cancel_requested(), or 0.
int cancel_signal();

}  // namespace diskcond::rawio
