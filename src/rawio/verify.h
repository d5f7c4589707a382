// --verify: after a write test, read back what its workers wrote and compare it with what the
// write pattern says is there. The offsets are those the workers issued, found again by replaying
// their offset generators (same seed, same sequence) for the transfers each issued; each distinct
// offset is read once, in order, by one thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/result.h"
#include "rawio/run_result.h"
#include "rawio/target.h"
#include "rawio/test_spec.h"

namespace diskcond::rawio {

// REQUIRES: spec is the write test's, issued_per_worker its workers' issued counts (warm-up
// included). Errors (open, a failed or short read) come back as one line.
Result<VerifyResult> verify_written(const Target& target, const TestSpec& spec,
                                    std::span<const uint64_t> issued_per_worker);

}  // namespace diskcond::rawio
