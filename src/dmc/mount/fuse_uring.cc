#include "dmc/mount/fuse_uring.h"

#include <liburing.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "dmc/mount/fuse_uring_abi.h"
#include "dmc/mount/fuse_uring_message.h"
#include "posix/thread_name.h"

namespace diskcond::mount {

using uring_abi::CommandRequest;
using uring_abi::RequestHeader;

// One ring entry: a mapping of [header page][message prefix page][payload], registered as
// iov[0] = header, iov[1] = payload.
struct FuseUring::Entry {
  Queue* queue = nullptr;
  void* mapping = nullptr;
  size_t mapping_bytes = 0;
  RequestHeader* header = nullptr;
  char* payload = nullptr;
  size_t capacity = 0;
  struct iovec iov[2] = {};
  uint64_t unique = 0;   // the request the entry holds (queue thread, then the replier)
  bool fetched = false;  // the kernel has sent it a request at least once (queue thread)
  unsigned retries = 0;  // REGISTERs refused with EAGAIN (queue thread)
};

struct FuseUring::Queue {
  unsigned qid = 0;
  io_uring ring{};
  bool ring_made = false;
  bool fixed_file = false;  // /dev/fuse is the ring's registered file 0 (saves a lookup per SQE)
  int wake_fd = -1;
  uint64_t wake_value = 0;  // the eventfd read's buffer
  std::thread thread;
  std::vector<Entry> entries;
  std::mutex mailbox_mu;
  std::vector<Entry*> mailbox;  // replies made on other threads, to commit; guarded by mailbox_mu
};

namespace {

constexpr uint64_t kWakeTag = 1;  // user_data of the eventfd read (entries are aligned pointers)
constexpr unsigned kMaxRegisterRetries = 1000;
constexpr size_t kSqeCommandOffset = 48;  // io_uring_sqe::cmd, the 80-byte area of an SQE128
constexpr size_t kSqeCommandBytes = 80;
static_assert(offsetof(io_uring_sqe, addr3) == kSqeCommandOffset);

thread_local FuseUring::Queue* t_queue = nullptr;  // the queue whose thread this is

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Why the kernel's INIT had no offer, for the fallback line.
std::string why_not_offered() {
  const std::string enabled = first_line("/sys/module/fuse/parameters/enable_uring");
  if (enabled.empty())
    return "this kernel has no FUSE over io_uring (no /sys/module/fuse/parameters/enable_uring)";
  if (enabled != "Y")
    return "/sys/module/fuse/parameters/enable_uring is " + enabled + " (root may write Y to it)";
  return "the kernel's INIT did not offer FUSE over io_uring";
}

size_t page_bytes() {
  return static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

io_uring_sqe* next_sqe(io_uring* ring) {
  io_uring_sqe* sqe = io_uring_get_sqe(ring);
  if (sqe == nullptr) {
    io_uring_submit(ring);
    sqe = io_uring_get_sqe(ring);
  }
  return sqe;
}

// An IORING_OP_URING_CMD on /dev/fuse with its fuse_uring_cmd_req. `fuse_fd` is the ring's fixed
// file 0 when `fixed`, else the descriptor.
void prep_fuse_command(io_uring_sqe* sqe, int fuse_fd, bool fixed, uint32_t command,
                       const void* addr, unsigned length, uint16_t qid, uint64_t commit_id) {
  io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fixed ? 0 : fuse_fd, addr, length, 0);
  if (fixed) sqe->flags |= IOSQE_FIXED_FILE;
  sqe->cmd_op = command;
  char* area = reinterpret_cast<char*>(sqe) + kSqeCommandOffset;
  std::memset(area, 0, kSqeCommandBytes);
  CommandRequest request{};
  request.commit_id = commit_id;
  request.qid = qid;
  std::memcpy(area, &request, sizeof request);
}

}  // namespace

FuseUring::FuseUring(fuse_session* se, int fuse_fd) : se_(se), fuse_fd_(fuse_fd) {
  const unsigned count = possible_cpu_count(first_line("/sys/devices/system/cpu/possible"));
  for (unsigned qid = 0; qid < count; ++qid) {
    queues_.push_back(std::make_unique<Queue>());
    queues_.back()->qid = qid;
  }
}

FuseUring::~FuseUring() {
  stop();
  // The kernel keeps the entries' addresses until the connection is released: unmapped only
  // here, after the session (and its /dev/fuse descriptor) is gone.
  for (auto& q : queues_) {
    if (q->wake_fd >= 0) close(q->wake_fd);
    for (Entry& e : q->entries) {
      if (e.mapping != nullptr) munmap(e.mapping, e.mapping_bytes);
    }
  }
}

void FuseUring::fall_back(const std::string& why) {
  if (fell_back_.exchange(true)) return;
  std::fprintf(stderr, "diskcond: DISKCOND_FUSE_URING=1, but %s: requests come through /dev/fuse\n",
               why.c_str());
}

void FuseUring::saw_request(const void* message, size_t length) {
  if (init_seen_) return;  // the kernel sends nothing else before INIT is answered
  bool is_init = false;
  uint64_t unique = 0;
  const bool offers = init_offers_uring(message, length, &is_init, &unique);
  if (!is_init) return;
  init_unique_ = unique;
  offered_ = offers;
  init_seen_ = true;
}

void FuseUring::before_init_reply(struct iovec* iov, int count) {
  if (!init_seen_ || init_replied_ || count < 1 || iov[0].iov_len != sizeof(fuse_out_header))
    return;
  fuse_out_header out;
  std::memcpy(&out, iov[0].iov_base, sizeof out);
  if (out.unique != init_unique_) return;
  const std::string why = start_queues(iov, count);
  if (why.empty()) {
    ask_for_uring(iov, count);
    asked_ = true;
  } else {
    init_replied_ = true;  // nothing more to do for any reply
    fall_back(why);
  }
}

std::string FuseUring::start_queues(const struct iovec* iov, int count) {
  if (!offered_) return why_not_offered();
  payload_bytes_ = ring_payload_bytes(iov, count, page_bytes());
  if (payload_bytes_ == 0) return "libfuse's INIT reply cannot ask for it";
  if (queues_.empty()) return "/sys/devices/system/cpu/possible cannot be read";
  for (auto& q : queues_) {
    Queue* queue = q.get();
    q->thread = std::thread([this, queue] { run_queue(*queue); });
  }
  std::unique_lock lock(start_mu_);
  start_cv_.wait(lock, [this] { return rings_made_ + rings_failed_ == queues_.size(); });
  if (rings_failed_ == 0) return "";
  const std::string why = "an io_uring cannot be made (" + ring_error_ + ")";
  lock.unlock();
  stop();
  return why;
}

void FuseUring::after_init_reply(const struct iovec* iov, int count, ssize_t written) {
  if (!asked_ || init_replied_ || count < 1 || iov[0].iov_len != sizeof(fuse_out_header)) return;
  fuse_out_header out;
  std::memcpy(&out, iov[0].iov_base, sizeof out);
  if (out.unique != init_unique_) return;
  init_replied_ = true;
  if (written < 0) {
    stop();
    return fall_back("the INIT reply could not be written");
  }
  running_ = true;
  {
    std::lock_guard lock(start_mu_);
    go_ = true;
  }
  start_cv_.notify_all();
}

bool FuseUring::reply(const struct iovec* iov, int count, ssize_t* result) {
  if (!running_.load(std::memory_order_relaxed)) return false;
  if (count < 1 || iov[0].iov_len != sizeof(fuse_out_header)) return false;
  fuse_out_header out;
  std::memcpy(&out, iov[0].iov_base, sizeof out);
  if (out.unique == 0) return false;  // a notification: /dev/fuse only
  Entry* e = nullptr;
  {
    std::lock_guard lock(owned_mu_);
    auto it = owned_.find(out.unique);
    if (it == owned_.end()) return false;
    e = it->second;
    owned_.erase(it);
  }
  const ssize_t n = pack_reply(iov, count, e->header, e->payload, e->capacity);
  Queue& q = *e->queue;
  if (t_queue == &q) {
    commit(q, *e);  // submitted with the thread's next wait
  } else {
    {
      std::lock_guard lock(q.mailbox_mu);
      q.mailbox.push_back(e);
    }
    const uint64_t one = 1;
    if (write(q.wake_fd, &one, sizeof one) < 0) {
      // Cannot fail for an eventfd short of 2^64 - 2 pending wake-ups.
    }
  }
  if (n < 0) {
    errno = -n;
    *result = -1;
  } else {
    *result = n;
  }
  return true;
}

void FuseUring::stop() {
  stopping_ = true;
  running_ = false;
  { std::lock_guard lock(start_mu_); }
  start_cv_.notify_all();
  for (auto& q : queues_) {
    if (q->wake_fd >= 0) {
      const uint64_t one = 1;
      if (write(q->wake_fd, &one, sizeof one) < 0) {
        // As in reply().
      }
    }
  }
  for (auto& q : queues_) {
    if (q->thread.joinable() && q->thread.get_id() != std::this_thread::get_id()) q->thread.join();
  }
}

bool FuseUring::make_ring(Queue& q) {
  const unsigned depth = kEntriesPerQueue + 2;  // the entries and the eventfd read
  // Single issuer with deferred task work: the kernel's work for this ring runs when its thread
  // waits, not as an interrupt of whatever it does. Older kernels: plain SQE128.
  const unsigned flag_sets[] = {
      IORING_SETUP_SQE128 | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
      IORING_SETUP_SQE128 | IORING_SETUP_COOP_TASKRUN, IORING_SETUP_SQE128};
  int r = -EINVAL;
  for (unsigned flags : flag_sets) {
    io_uring_params params{};
    params.flags = flags;
    r = io_uring_queue_init_params(depth, &q.ring, &params);
    if (r != -EINVAL) break;
  }
  std::string error;
  if (r < 0) {
    error = std::string("io_uring_setup: ") + std::strerror(-r);
  } else {
    q.ring_made = true;
    q.fixed_file = io_uring_register_files(&q.ring, &fuse_fd_, 1) == 0;
    q.wake_fd = eventfd(0, EFD_CLOEXEC);
    if (q.wake_fd < 0) error = std::string("eventfd: ") + std::strerror(errno);
  }
  const size_t page = page_bytes();
  q.entries.resize(error.empty() ? kEntriesPerQueue : 0);
  for (Entry& e : q.entries) {
    e.queue = &q;
    e.capacity = payload_bytes_;
    e.mapping_bytes = page + kMessagePrefixBytes + e.capacity;
    void* m =
        mmap(nullptr, e.mapping_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      error = std::string("mmap: ") + std::strerror(errno);
      break;
    }
    e.mapping = m;
    e.header = static_cast<RequestHeader*>(m);
    e.payload = static_cast<char*>(m) + page + kMessagePrefixBytes;
    e.iov[0] = {e.header, sizeof(RequestHeader)};
    e.iov[1] = {e.payload, e.capacity};
  }
  std::lock_guard lock(start_mu_);
  if (error.empty()) {
    ++rings_made_;
  } else {
    ++rings_failed_;
    ring_error_ = error;
  }
  start_cv_.notify_all();
  return error.empty();
}

void FuseUring::register_entry(Queue& q, Entry& e) {
  io_uring_sqe* sqe = next_sqe(&q.ring);
  prep_fuse_command(sqe, fuse_fd_, q.fixed_file, uring_abi::kRegister, e.iov, 2,
                    static_cast<uint16_t>(q.qid), 0);
  io_uring_sqe_set_data(sqe, &e);
}

void FuseUring::commit(Queue& q, Entry& e) {
  io_uring_sqe* sqe = next_sqe(&q.ring);
  prep_fuse_command(sqe, fuse_fd_, q.fixed_file, uring_abi::kCommitAndFetch, nullptr, 0,
                    static_cast<uint16_t>(q.qid), e.unique);
  io_uring_sqe_set_data(sqe, &e);
}

void FuseUring::on_request(Queue& q, Entry& e) {
  requests_.fetch_add(1, std::memory_order_relaxed);
  e.fetched = true;
  fuse_in_header in;
  std::memcpy(&in, e.header->in_out, sizeof in);
  e.unique = in.unique;
  RingMessage message;
  if (assemble_request(*e.header, e.payload, e.capacity, &message) < 0) {
    fuse_out_header out{};
    out.len = sizeof out;
    out.error = -EIO;
    out.unique = in.unique;
    std::memcpy(e.header->in_out, &out, sizeof out);
    e.header->ring_ent_in_out.payload_sz = 0;
    return commit(q, e);
  }
  {
    std::lock_guard lock(owned_mu_);
    owned_[e.unique] = &e;
  }
  fuse_buf buf{};
  buf.mem = message.data;
  buf.size = message.size;
  fuse_session_process_buf(se_, &buf);
}

void FuseUring::run_queue(Queue& q) {
  t_queue = &q;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);  // signals are the main thread's
  posix::name_this_thread("dmc-uring-" + std::to_string(q.qid));
  const bool made = make_ring(q);
  if (made) {
    std::unique_lock lock(start_mu_);
    start_cv_.wait(lock, [this] { return go_ || stopping_.load(); });
  }
  if (!made || stopping_) {
    if (q.ring_made) io_uring_queue_exit(&q.ring);
    return;
  }
  // The kernel picks a request's queue by the CPU its caller runs on: serve it from that CPU.
  cpu_set_t cpu;
  CPU_ZERO(&cpu);
  CPU_SET(q.qid, &cpu);
  pthread_setaffinity_np(pthread_self(), sizeof cpu, &cpu);

  auto arm_wake = [&] {
    io_uring_sqe* sqe = next_sqe(&q.ring);
    io_uring_prep_read(sqe, q.wake_fd, &q.wake_value, sizeof q.wake_value, 0);
    io_uring_sqe_set_data64(sqe, kWakeTag);
  };
  arm_wake();
  for (Entry& e : q.entries) register_entry(q, e);

  std::vector<std::pair<uint64_t, int>> done;
  done.reserve(kEntriesPerQueue + 2);
  std::vector<Entry*> replies;
  while (!stopping_) {
    const int r = io_uring_submit_and_wait(&q.ring, 1);
    if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
      if (!stopping_) fall_back(std::string("io_uring_enter: ") + std::strerror(-r));
      break;
    }
    done.clear();
    unsigned head;
    io_uring_cqe* cqe;
    io_uring_for_each_cqe(&q.ring, head, cqe) {
      done.emplace_back(cqe->user_data, cqe->res);
    }
    io_uring_cq_advance(&q.ring, static_cast<unsigned>(done.size()));
    for (auto [data, res] : done) {
      if (data == kWakeTag) {
        {
          std::lock_guard lock(q.mailbox_mu);
          replies.swap(q.mailbox);
        }
        for (Entry* e : replies) commit(q, *e);
        replies.clear();
        if (!stopping_) arm_wake();
        continue;
      }
      Entry& e = *reinterpret_cast<Entry*>(data);
      if (res == 0) {
        on_request(q, e);
      } else if (res == -EAGAIN && !e.fetched && ++e.retries < kMaxRegisterRetries) {
        usleep(1000);  // the kernel has not yet taken in the INIT reply
        register_entry(q, e);
      } else {
        // The kernel dropped it: the connection is going away, or it refused the REGISTER (and
        // went back to /dev/fuse itself).
        if (!e.fetched && !stopping_ && res != -ENOTCONN && res != -ECONNABORTED)
          fall_back(std::string("the kernel refused a ring entry (") + std::strerror(-res) + ")");
      }
    }
  }
  io_uring_queue_exit(&q.ring);
}

}  // namespace diskcond::mount
