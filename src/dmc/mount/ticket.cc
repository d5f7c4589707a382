#include "dmc/mount/ticket.h"

#include "dmc/mount/conditioner.h"

namespace diskcond::mount {

Ticket::Ticket(Conditioner* owner, Arrival arrival, Op op, uint64_t length, RequestKind kind)
    : owner_(owner),
      arrival_ns_(arrival.ns),
      completion_ns_(arrival.ns),
      length_(length),
      op_(op),
      kind_(kind),
      conditioned_(kind == RequestKind::kData),
      kernel_sent_(arrival.kernel_sent),
      unique_(arrival.unique) {}

Ticket::Ticket(Ticket&& other) noexcept
    : owner_(other.owner_),
      arrival_ns_(other.arrival_ns_),
      completion_ns_(other.completion_ns_),
      length_(other.length_),
      op_(other.op_),
      kind_(other.kind_),
      conditioned_(other.conditioned_),
      device_(other.device_),
      kernel_sent_(other.kernel_sent_),
      unique_(other.unique_) {
  other.owner_ = nullptr;
}

Ticket::~Ticket() {
  if (owner_ != nullptr) owner_->count_misuse();  // never finished: its caller gets no reply
}

void Ticket::charge(int64_t completion_ns) {
  completion_ns_ = std::max(completion_ns_, completion_ns);
  conditioned_ = true;
}

}  // namespace diskcond::mount
