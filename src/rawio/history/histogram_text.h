// The compact text form of a latency histogram's non-empty buckets, as stored in the history
// database: "index:samples" pairs separated by spaces, in index order ("" when empty).
// Together with the stored sum, min and max this restores the histogram exactly.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace diskcond::rawio::history {

using BucketList = std::vector<std::pair<uint32_t, uint64_t>>;

std::string buckets_to_text(const BucketList& buckets);
// Fails on anything but the form above, or an index outside the histogram.
Result<BucketList> buckets_from_text(const std::string& text);

}  // namespace diskcond::rawio::history
