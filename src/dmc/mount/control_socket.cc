#include "dmc/mount/control_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/clock.h"
#include "dmc/mount/control_protocol.h"
#include "dmc/mount/syscall.h"
#include "posix/files.h"
#include "posix/thread_name.h"

namespace diskcond::mount {
namespace {

int64_t now_ms() {
  return monotonic_now_ns() / 1'000'000;
}

Result<sockaddr_un> socket_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return make_error("socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

// Reads up to and including '\n' (or EOF), within `timeout_ms`. Returns the line without '\n'.
Result<std::string> read_line(int fd, int timeout_ms) {
  std::string line;
  const int64_t deadline = now_ms() + timeout_ms;
  char buf[4096];
  for (;;) {
    const int64_t left = deadline - now_ms();
    if (left <= 0) return make_error("timed out");
    pollfd p{fd, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return make_error(std::string("poll: ") + std::strerror(errno));
    if (r == 0) return make_error("timed out");
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(std::string("read: ") + std::strerror(errno));
    if (n == 0) {
      if (line.empty()) return make_error("connection closed");
      return line;
    }
    line.append(buf, static_cast<size_t>(n));
    size_t nl = line.find('\n');
    if (nl != std::string::npos) return line.substr(0, nl);
    if (line.size() > kMaxControlLine) return make_error("message too long");
  }
}

}  // namespace

ControlServer::~ControlServer() {
  stop();
}

Status ControlServer::start(const std::string& path, Handler handler) {
  auto addr = socket_address(path);
  if (!addr.ok()) return Error{addr.error()};
  path_ = path;
  handler_ = std::move(handler);
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return make_error(std::string("socket: ") + std::strerror(errno));
  unlink(path.c_str());
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&*addr), sizeof(*addr)) < 0 ||
      chmod(path.c_str(), 0666) < 0 || listen(listen_fd_, 16) < 0) {
    int err = errno;
    close(listen_fd_);
    listen_fd_ = -1;
    return make_error("control socket " + path + ": " + std::strerror(err));
  }
  if (pipe2(wake_pipe_, O_CLOEXEC) < 0)
    return make_error(std::string("pipe: ") + std::strerror(errno));
  thread_ = std::thread([this] { run(); });
  return ok_status();
}

void ControlServer::close_listener() {
  if (closing_.exchange(true)) return;
  unlink(path_.c_str());
  if (wake_pipe_[1] >= 0) posix::write_all(wake_pipe_[1], "x");
}

void ControlServer::stop() {
  close_listener();
  if (thread_.joinable()) thread_.join();
  for (int* fd : {&listen_fd_, &wake_pipe_[0], &wake_pipe_[1]}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void ControlServer::run() {
  posix::name_this_thread("dmc-control");
  std::vector<pollfd> fds;
  while (!closing_.load()) {
    fds.clear();
    fds.push_back({listen_fd_, POLLIN, 0});
    fds.push_back({wake_pipe_[0], POLLIN, 0});
    int64_t next_deadline = -1;
    for (const Connection& c : connections_) {
      fds.push_back({c.fd, POLLIN, 0});
      if (next_deadline < 0 || c.deadline_ms < next_deadline) next_deadline = c.deadline_ms;
    }
    const int timeout =
        next_deadline < 0 ? -1 : static_cast<int>(std::max<int64_t>(next_deadline - now_ms(), 0));
    if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) return;
    if (closing_.load()) break;
    // Connections first (their pollfds follow the two fixed ones, in order), then new ones.
    const int64_t now = now_ms();
    size_t kept = 0;
    for (size_t i = 0; i < connections_.size(); ++i) {
      Connection& c = connections_[i];
      bool done = false;
      if (fds[i + 2].revents != 0) done = serve(c);
      if (!done && now >= c.deadline_ms) done = true;  // silent or too slow: dropped
      if (done) {
        close(c.fd);
      } else {
        if (kept != i) connections_[kept] = std::move(c);
        ++kept;
      }
    }
    connections_.resize(kept);
    if (!closing_.load() && (fds[0].revents & POLLIN)) accept_one();
  }
  for (Connection& c : connections_) close(c.fd);
  connections_.clear();
}

void ControlServer::accept_one() {
  int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) return;
  ucred peer{};
  socklen_t len = sizeof(peer);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) < 0) {
    close(fd);
    return;
  }
  if (connections_.size() >= kMaxControlConnections) {  // the oldest makes room
    close(connections_.front().fd);
    connections_.erase(connections_.begin());
  }
  connections_.push_back(Connection{fd, peer.uid, now_ms() + kControlRequestTimeoutMs, {}});
}

bool ControlServer::serve(Connection& conn) {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(conn.fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    if (n <= 0) {  // closed (or failed) before a full line: answer what came, if anything
      if (n < 0 || conn.received.empty()) return true;
      break;
    }
    conn.received.append(buf, static_cast<size_t>(n));
    if (conn.received.find('\n') != std::string::npos) break;
    if (conn.received.size() > kMaxControlLine) {
      conn.received.clear();
      const std::string reply = encode_error("message too long");
      send(conn.fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      return true;
    }
  }
  const std::string line = conn.received.substr(0, conn.received.find('\n'));
  const std::string reply = handler_(line, conn.peer_uid);
  // Replies are far smaller than a socket buffer; a peer that went away must not kill the daemon.
  send(conn.fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  return true;
}

Result<std::string> control_call(const std::string& path, const std::string& request,
                                 int timeout_ms) {
  auto addr = socket_address(path);
  if (!addr.ok()) return Error{addr.error()};
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(std::string("socket: ") + std::strerror(errno));
  if (connect(fd, reinterpret_cast<sockaddr*>(&*addr), sizeof(*addr)) < 0) {
    int err = errno;
    close(fd);
    return make_error("no daemon at " + path + ": " + std::strerror(err));
  }
  size_t done = 0;
  while (done < request.size()) {
    ssize_t n = send(fd, request.data() + done, request.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return make_error(std::string("send: ") + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  auto reply = read_line(fd, timeout_ms);
  close(fd);
  return reply;
}

}  // namespace diskcond::mount
