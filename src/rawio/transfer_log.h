// TransferLog: one worker's record of every measured transfer, for --latency-log. The hot path
// appends 40 bytes to a fixed-size chunk it owns; a full chunk is followed by a new one (one
// allocation per 65536 transfers, nothing copied), so the log costs memory, 40 bytes a transfer,
// until the test ends and the command writes it out.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "rawio/test_spec.h"

namespace diskcond::rawio {

struct TransferRecord {
  int64_t intended_ns;  // open loop: when it was due; closed loop: issue_ns
  int64_t issue_ns;     // submitted
  int64_t complete_ns;  // reaped
  uint64_t offset;
  uint32_t bytes;
};

class TransferLog {
 public:
  static constexpr size_t kChunkRecords = 65536;

  // Hot path.
  void add(const TransferRecord& r) {
    if (used_ == kChunkRecords) [[unlikely]]
      add_chunk();
    chunks_.back()[used_++] = r;
  }
  // Allocates the first chunk (call before the test, so the first transfers allocate nothing).
  void prepare() {
    if (chunks_.empty()) add_chunk();
  }
  size_t size() const { return chunks_.empty() ? 0 : (chunks_.size() - 1) * kChunkRecords + used_; }
  const TransferRecord& at(size_t i) const { return chunks_[i / kChunkRecords][i % kChunkRecords]; }

 private:
  void add_chunk() {
    chunks_.push_back(std::make_unique<TransferRecord[]>(kChunkRecords));
    used_ = 0;
  }
  std::vector<std::unique_ptr<TransferRecord[]>> chunks_;
  size_t used_ = kChunkRecords;
};

// The CSV header: "id,test,worker,intended_ns,issue_ns,complete_ns,latency_ns,offset,bytes".
inline constexpr const char* kTransferLogHeader =
    "id,test,worker,intended_ns,issue_ns,complete_ns,latency_ns,offset,bytes\n";

// Appends one line per record of every worker's log (worker by worker, each in completion order)
// to `out`: times in ns from `start_ns` (the end of the warm-up), latency = complete - intended.
Status write_transfer_log(std::FILE* out, const std::string& id, TestKind kind, int64_t start_ns,
                          const std::vector<const TransferLog*>& workers);

}  // namespace diskcond::rawio
