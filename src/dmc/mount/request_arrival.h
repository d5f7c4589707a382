// When the FUSE request a worker thread serves reached the daemon.
//
// session_io.cc notes the conditioner's clock as a worker's read of /dev/fuse returns a request,
// and, when the kernel's send of it was stamped (send_stamps.h), that send's time on the same
// clock; that request's first Conditioner::begin() takes the send (else the read) as its arrival,
// so the hand-over to a worker, libfuse's dispatch and the handler's own checks before begin()
// are part of the pretend device's time rather than added to it (a real device's clock starts
// when the command is submitted). The note is taken once: a later begin() on the thread, for the
// same request or for one that did not come through that read (FUSE over io_uring, the daemon's
// own work), arrives when it is called, as it always did. A read that brings no request leaves no
// note.
//
// Never earlier than the truth: the caller sent the request before the daemon read it, and the
// send is stamped inside the caller's system call.
#pragma once

#include <cstdint>

namespace diskcond::mount {

// A request's arrival on the conditioner's clock, and whether it is the kernel's send (true) or
// the worker's read (or the handler's call).
struct Arrival {
  int64_t ns = 0;
  bool kernel_sent = false;
  uint64_t unique = 0;  // the kernel's number of the request read; 0: none (see above)
};

// Notes `read_ns` (the conditioner's clock, Conditioner::now()) as the time this thread read
// request `unique`, and `sent_ns` (same clock; 0: not stamped) as the kernel's send of it; read_ns
// 0 clears the note.
void note_request_read(int64_t read_ns, int64_t sent_ns = 0, uint64_t unique = 0);
// The noted arrival (the send when stamped and no later than the read, else the read), which is
// then cleared; {0, false} when there is none.
Arrival take_request_read();

}  // namespace diskcond::mount
