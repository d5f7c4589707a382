// The FUSE session's own /dev/fuse I/O: a fuse_custom_io that reads and writes as libfuse's
// default does and shows every message to the hooks that need it: KILLPRIV_V2 (killpriv_v2.h:
// the INIT offer and reply) and, when it is on, FUSE over io_uring (fuse_uring.h: it sees the
// INIT, and replies to requests that came through its rings go back through them). It also
// times one read and one writev in CopyBound::kSampleEvery per thread for the copy lead
// (copy_bound.h; data-less ones one in 64 once the bound's slot 0 is ready).
#pragma once

#include <fuse_lowlevel.h>

namespace diskcond::mount {

// Makes `se` (mounted) read and write its /dev/fuse descriptor through the hooks. REQUIRES:
// called before the session loop starts; the session's userdata is the Filesystem (its killpriv
// and uring members), which libfuse hands to the hooks. Returns 0 or -1.
int install_session_io(fuse_session* se);

}  // namespace diskcond::mount
