// The compact text form of a latency histogram's non-empty buckets, as stored in the history
// database: "index:samples" pairs separated by spaces, in index order ("" when empty).
// Together with the stored sum, min and max this restores the histogram exactly.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "rawio/latency_histogram.h"

namespace diskcond::rawio::history {

std::string buckets_to_text(const BucketList& buckets);
// Fails on anything but the form above, or an index of `bucket_count` or more (the histogram's
// layout: LatencyHistogram::kLegacyBucketCount for what schema 1 and 2 stored).
Result<BucketList> buckets_from_text(const std::string& text,
                                     size_t bucket_count = LatencyHistogram::kBucketCount);

}  // namespace diskcond::rawio::history
