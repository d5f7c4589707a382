#include "dmc/mount/model_order.h"

#include <sched.h>

namespace diskcond::mount {
namespace {

thread_local uint64_t announced = 0;

}  // namespace

void set_announced_request(uint64_t unique) {
  announced = unique;
}
uint64_t announced_request() {
  return announced;
}

void ModelOrder::announce(uint64_t unique) {
  std::lock_guard lock(mu_);
  announced_.insert(unique);
}

void ModelOrder::retire(uint64_t unique) {
  std::lock_guard lock(mu_);
  announced_.erase(unique);
}

bool ModelOrder::earlier_pending(uint64_t unique) const {
  std::lock_guard lock(mu_);
  return !announced_.empty() && *announced_.begin() < unique;
}

bool ModelOrder::await_turn(uint64_t unique, const std::function<int64_t()>& now,
                            int64_t max_wait_ns) const {
  if (!earlier_pending(unique)) return true;
  const int64_t until = now() + max_wait_ns;
  while (earlier_pending(unique)) {
    if (now() >= until) {
      std::lock_guard lock(mu_);
      ++gave_up_;
      return false;
    }
    sched_yield();
  }
  return true;
}

uint64_t ModelOrder::gave_up() const {
  std::lock_guard lock(mu_);
  return gave_up_;
}

}  // namespace diskcond::mount
