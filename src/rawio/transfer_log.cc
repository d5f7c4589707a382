#include "rawio/transfer_log.h"

#include <fmt/format.h>
#include <string.h>

#include <cerrno>

namespace diskcond::rawio {

Status write_transfer_log(std::FILE* out, const std::string& id, TestKind kind, int64_t start_ns,
                          const std::vector<const TransferLog*>& workers) {
  std::string chunk;
  const std::string_view test = test_code(kind);
  for (size_t w = 0; w < workers.size(); ++w) {
    const TransferLog& log = *workers[w];
    for (size_t i = 0; i < log.size(); ++i) {
      const TransferRecord& r = log.at(i);
      fmt::format_to(std::back_inserter(chunk), "{},{},{},{},{},{},{},{},{}\n", id, test, w,
                     r.intended_ns - start_ns, r.issue_ns - start_ns, r.complete_ns - start_ns,
                     r.complete_ns - r.intended_ns, r.offset, r.bytes);
      if (chunk.size() >= (1 << 20)) {
        if (std::fwrite(chunk.data(), 1, chunk.size(), out) != chunk.size())
          return make_error(fmt::format("--latency-log: cannot write: {}", strerror(errno)));
        chunk.clear();
      }
    }
  }
  if (std::fwrite(chunk.data(), 1, chunk.size(), out) != chunk.size() || std::fflush(out) != 0)
    return make_error(fmt::format("--latency-log: cannot write: {}", strerror(errno)));
  return ok_status();
}

}  // namespace diskcond::rawio
