// When the FUSE request a worker thread serves reached the daemon.
//
// session_io.cc notes the conditioner's clock as a worker's read of /dev/fuse returns a request;
// that request's first Conditioner::begin() takes the noted time as its arrival, so libfuse's
// dispatch and the handler's own checks before begin() are part of the pretend device's time
// rather than added to it (a real device's clock starts when the command is submitted). The note
// is taken once: a later begin() on the thread, for the same request or for one that did not come
// through that read (FUSE over io_uring, the daemon's own work), arrives when it is called, as it
// always did. A read that brings no request leaves no note.
//
// Never earlier than the truth: the caller sent the request before the daemon read it.
#pragma once

#include <cstdint>

namespace diskcond::mount {

// Notes `now_ns` (the conditioner's clock, Conditioner::now()) as the arrival of the request this
// thread has just read; 0 clears the note.
void note_request_read(int64_t now_ns);
// The note, which is then cleared; 0 when there is none.
int64_t take_request_read();

}  // namespace diskcond::mount
