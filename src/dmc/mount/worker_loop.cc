#include "dmc/mount/worker_loop.h"

#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

#include "dmc/mount/buffer_pool.h"
#include "posix/thread_name.h"

namespace diskcond::mount {
namespace {

// A worker's own receive buffer: kReceiveBufferBytes in one whole 2 MiB huge page or in ordinary
// pages; none (null) for a core worker whose buffers go by CPU (ReceiveBuffers).
class ReceiveBuffer {
 public:
  ReceiveBuffer(bool huge, bool own)
      : data_(own ? allocate_data_buffer(kReceiveBufferBytes, huge) : nullptr) {}
  ~ReceiveBuffer() { std::free(data_); }
  ReceiveBuffer(const ReceiveBuffer&) = delete;
  ReceiveBuffer& operator=(const ReceiveBuffer&) = delete;

  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

}  // namespace

ReceiveBuffers::ReceiveBuffers(bool huge) : huge_(huge) {}

ReceiveBuffers::~ReceiveBuffers() {
  for (void* data : all_) std::free(data);
}

void* ReceiveBuffers::take(int cpu) {
  std::lock_guard lock(mu_);
  for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
    if (it->cpu == cpu) {
      void* data = it->data;
      free_.erase(std::next(it).base());
      return data;
    }
  }
  if (all_.size() < kMaxBuffers || free_.empty()) {
    void* data = allocate_data_buffer(kReceiveBufferBytes, huge_);
    if (data != nullptr) all_.push_back(data);
    return data;
  }
  void* data = free_.front().data;
  free_.erase(free_.begin());
  return data;
}

void ReceiveBuffers::give(void* buffer, int cpu) {
  std::lock_guard lock(mu_);
  free_.push_back({buffer, cpu});
}

size_t ReceiveBuffers::made() const {
  std::lock_guard lock(mu_);
  return all_.size();
}

namespace {

class Loop;

struct Worker {
  Worker(Loop* loop, bool core, bool huge, bool own_buffer)
      : loop(loop), core(core), buffer(huge, own_buffer) {
    sem_init(&wake, 0, 0);
  }
  ~Worker() { sem_destroy(&wake); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  Loop* loop;
  const bool core;  // one of the first kCoreWorkers: never parks
  ReceiveBuffer buffer;
  sem_t wake;  // posted when the worker is taken off the parked stack
  pthread_t thread{};
};

class Loop {
 public:
  Loop(fuse_session* se, const WorkerLoopConfig& config)
      : se_(se), config_(config), shared_(config.huge_buffers) {
    sem_init(&finish_, 0, 0);
  }
  ~Loop() { sem_destroy(&finish_); }

  // Adds a reader: the most recently parked worker, else a new one unless max_workers run.
  // Counted as waiting for a request from here on. False when there was none to wake and none
  // could start (no memory or no thread); the loop goes on with the workers it has.
  bool add_reader() {
    std::lock_guard lock(mu_);
    if (exiting_) return false;
    if (!parked_.empty()) {
      Worker* worker = parked_.back();
      parked_.pop_back();
      waiting_.fetch_add(1, std::memory_order_acq_rel);
      sem_post(&worker->wake);
      return true;
    }
    return start_worker_locked();
  }

  bool start_worker() {
    std::lock_guard lock(mu_);
    return !exiting_ && start_worker_locked();
  }

  // Counts `worker` waiting again, or parks it when it is a spare and kSpareReaders others are
  // waiting already: then returns once add_reader() takes it off the stack (counted waiting by
  // it), or never when the loop cancels it there at exit.
  void rejoin(Worker& worker) {
    if (worker.core || !config_.park_spares) {  // never parks: no need to order against add_reader
      waiting_.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    {
      std::lock_guard lock(mu_);
      if (exiting_ || waiting_.load(std::memory_order_acquire) < kSpareReaders) {
        waiting_.fetch_add(1, std::memory_order_acq_rel);
        return;
      }
      parked_.push_back(&worker);
    }
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, nullptr);
    while (sem_wait(&worker.wake) != 0) {
    }  // EINTR: a signal
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
  }

  bool start_worker_locked() {
    if (workers_.size() >= config_.max_workers) return false;
    const bool core = workers_.size() < kCoreWorkers;
    // A core worker takes its buffers from shared_ when they go by CPU.
    const bool own_buffer = !core || !config_.receive_by_cpu;
    auto worker = std::make_unique<Worker>(this, core, config_.huge_buffers && core, own_buffer);
    if (own_buffer && worker->buffer.data() == nullptr) return false;
    waiting_.fetch_add(1, std::memory_order_relaxed);
    if (pthread_create(&worker->thread, nullptr, &Loop::worker_main, worker.get()) != 0) {
      waiting_.fetch_sub(1, std::memory_order_relaxed);
      return false;
    }
    workers_.push_back(std::move(worker));
    return true;
  }

  // On the main thread: waits until the session exits, then ends every worker.
  int wait_and_stop() {
    while (!fuse_session_exited(se_)) sem_wait(&finish_);  // a signal's EINTR checks again
    std::vector<pthread_t> threads;
    {
      std::lock_guard lock(mu_);
      exiting_ = true;
      for (const auto& w : workers_) {
        pthread_cancel(w->thread);
        threads.push_back(w->thread);
      }
    }
    for (pthread_t t : threads) pthread_join(t, nullptr);
    return error_.load();
  }

 private:
  static void* worker_main(void* arg) {
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
    posix::name_this_thread("dmc-fuse");
    auto* worker = static_cast<Worker*>(arg);
    worker->loop->serve(*worker);
    return nullptr;
  }

  void serve(Worker& worker) {
    fuse_buf buf{};
    buf.mem = worker.buffer.data();
    const bool by_cpu = buf.mem == nullptr;
    while (!fuse_session_exited(se_)) {
      if (by_cpu) {
        buf.mem = shared_.take(sched_getcpu());
        if (buf.mem == nullptr) {  // no memory: as libfuse's loop does when it cannot allocate
          int none = 0;
          error_.compare_exchange_strong(none, -ENOMEM);
          fuse_session_exit(se_);
          break;
        }
      }
      pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, nullptr);
      const int res = fuse_session_receive_buf(se_, &buf);
      pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, nullptr);
      if (res <= 0) {
        if (by_cpu) shared_.give(buf.mem, sched_getcpu());
        buf.mem = nullptr;
      }
      if (res == -EINTR) continue;
      if (res <= 0) {  // 0: the session exited (the unmount's ENODEV included)
        if (res < 0) {
          int none = 0;
          error_.compare_exchange_strong(none, res);
          fuse_session_exit(se_);
        }
        break;
      }
      // A burst of forgets starts no workers (libfuse's rule): they never block.
      const auto opcode = static_cast<const fuse_in_header*>(buf.mem)->opcode;
      const bool forget = opcode == FUSE_FORGET || opcode == FUSE_BATCH_FORGET;
      if (!forget && waiting_.fetch_sub(1, std::memory_order_acq_rel) == 1) add_reader();
      fuse_session_process_buf(se_, &buf);
      // Given back by the CPU that used it last: the handler's (a write's pwrite reads it).
      if (by_cpu) shared_.give(buf.mem, sched_getcpu());
      if (!forget) rejoin(worker);
    }
    sem_post(&finish_);
  }

  fuse_session* const se_;
  const WorkerLoopConfig config_;
  ReceiveBuffers shared_;  // the core workers' (receive_by_cpu)
  sem_t finish_;
  std::atomic<int> waiting_{0};  // workers in their read or about to be
  std::atomic<int> error_{0};
  std::mutex mu_;  // guards workers_, parked_ and exiting_
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> parked_;  // spares not reading, the most recently parked last
  bool exiting_ = false;
};

}  // namespace

int run_worker_loop(fuse_session* se, const WorkerLoopConfig& config) {
  Loop loop(se, config);
  if (!loop.start_worker()) return -ENOMEM;
  return loop.wait_and_stop();
}

}  // namespace diskcond::mount
