#include "dmc/mount/caller_cpu.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <string>

namespace diskcond::mount {
namespace {

thread_local pid_t current_caller = 0;
thread_local int current_caller_cpu = -1;

}  // namespace

void set_request_caller(pid_t tid, int sent_from_cpu) {
  current_caller = tid;
  current_caller_cpu = sent_from_cpu;
}

pid_t request_caller() {
  return current_caller;
}

int request_caller_cpu() {
  return current_caller_cpu;
}

int parse_stat_cpu(std::string_view stat) {
  const size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return -1;
  // After the name: field 3 (state) onwards; `processor` is field 39, the 37th of these.
  std::string_view rest = stat.substr(close + 1);
  constexpr int kFieldsToSkip = 39 - 3;
  for (int skipped = 0; skipped <= kFieldsToSkip; ++skipped) {
    const size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) return -1;
    rest.remove_prefix(start);
    if (skipped == kFieldsToSkip) break;
    const size_t end = rest.find(' ');
    if (end == std::string_view::npos) return -1;
    rest.remove_prefix(end);
  }
  int cpu = -1;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), cpu);
  if (ec != std::errc() || (end != rest.data() + rest.size() && *end != ' ' && *end != '\n'))
    return -1;
  return cpu >= 0 ? cpu : -1;
}

int read_thread_cpu(pid_t tid) {
  if (tid <= 0) return -1;
  const std::string path = "/proc/" + std::to_string(tid) + "/stat";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return -1;
  return parse_stat_cpu(std::string_view(buf, static_cast<size_t>(n)));
}

int CallerCpus::cpu_of(pid_t tid, int64_t now_ns) {
  if (tid <= 0) return -1;
  {
    std::lock_guard lock(mu_);
    const auto it = cpus_.find(tid);
    if (it != cpus_.end() && now_ns - it->second.read_ns < kRefreshNs) return it->second.cpu;
  }
  const int cpu = reader_(tid);
  std::lock_guard lock(mu_);
  ++reads_;
  if (cpus_.size() >= kMaxCallers && !cpus_.contains(tid)) cpus_.clear();
  cpus_[tid] = Entry{cpu, now_ns};
  return cpu;
}

uint64_t CallerCpus::reads() const {
  std::lock_guard lock(mu_);
  return reads_;
}

}  // namespace diskcond::mount
