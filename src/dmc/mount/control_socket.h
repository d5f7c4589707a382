// The unix stream socket dmc and a daemon talk over (protocol: control_protocol.h).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"

namespace diskcond::mount {

constexpr size_t kMaxControlConnections = 32;
constexpr int kControlRequestTimeoutMs = 2000;

// Daemon side: one thread multiplexes (poll) up to kMaxControlConnections connections at once.
// Each connection carries one request line (at most kMaxControlLine bytes, complete within
// kControlRequestTimeoutMs of connecting) and gets one reply line. A client that sends garbage
// gets an error reply; one that sends nothing or too slowly is dropped at its deadline, and never
// delays other clients. With every slot taken, the oldest connection is dropped to make room for
// a new one, so idle connections cannot lock others out. Serving goes on in every case.
class ControlServer {
 public:
  // Handles one request line from a peer with uid `peer_uid`; returns the reply line.
  using Handler = std::function<std::string(const std::string& line, uid_t peer_uid)>;

  ControlServer() = default;
  ~ControlServer();  // stop()
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Binds `path` (replacing a stale socket file), mode 0666, and starts serving.
  Status start(const std::string& path, Handler handler);
  // Stops accepting, joins the thread, removes the socket file. Idempotent. Must not be called
  // from the handler (use close_listener() there).
  void stop();
  // From the handler: stop accepting and unlink the socket file now; the thread ends after the
  // current request.
  void close_listener();

 private:
  struct Connection {
    int fd = -1;
    uid_t peer_uid = 0;
    int64_t deadline_ms = 0;  // CLOCK_MONOTONIC
    std::string received;
  };
  void run();
  void accept_one();
  // Reads what is there; returns true when the connection is finished (answered or dropped).
  bool serve(Connection& conn);

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  std::atomic<bool> closing_{false};
  std::vector<Connection> connections_;  // the serving thread's only
  std::thread thread_;
};

// Client side: sends one request line to the socket at `path` and returns the reply line.
// Errors: no daemon there (connect fails), timeout (`timeout_ms`), or a closed connection.
Result<std::string> control_call(const std::string& path, const std::string& request,
                                 int timeout_ms = 10000);

}  // namespace diskcond::mount
