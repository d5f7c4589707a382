#include "rawio/honesty.h"

#include <fmt/format.h>

namespace diskcond::rawio {
namespace {

std::string mb(double bytes_per_sec) {
  return fmt::format("{:.0f} MB/s", bytes_per_sec / 1e6);
}

}  // namespace

std::vector<Caution> honesty_cautions(const TargetFacts& facts, const TargetReport& report) {
  std::vector<Caution> out;
  const std::string& id = report.id;
  if (!facts.block_device && !facts.direct) {
    if (facts.direct_refused) {
      out.push_back({"page_cache",
                     fmt::format("{}: {} refused O_DIRECT, so the page cache served these tests: "
                                 "the figures are memory's, not the storage's",
                                 id, report.target)});
    } else {
      out.push_back({"buffered", fmt::format("{}: buffered I/O (--direct=off): the page cache "
                                             "served these tests, not only the storage",
                                             id)});
    }
  }
  if (facts.limit.memory_backed) {
    out.push_back({"memory_backed",
                   fmt::format("{}: {} is on a file system with no storage under it ({}): the "
                               "figures are memory's",
                               id, report.io_path, facts.limit.what)});
  }
  for (const RunResult& t : report.tests) {
    if (facts.null_engine) break;
    const std::string test = std::string(test_code(t.spec.kind));
    const double bw = t.bytes_per_sec();
    if (facts.limit.bytes_per_sec > 0 && bw > 1.05 * facts.limit.bytes_per_sec) {
      out.push_back(
          {"exceeds_interface",
           fmt::format("{} {}: {} is more than {} can carry ({}): a cache served it, "
                       "or the figure is wrong",
                       id, test, mb(bw), facts.limit.what, mb(facts.limit.bytes_per_sec))});
    }
    if (facts.limit.rotational && facts.direct && is_random(t.spec.kind) &&
        t.transfers_per_sec() > kRotatingRandomPerSec) {
      out.push_back({"rotating_random",
                     fmt::format("{} {}: {:.0f} random transfers/s from a rotating disk (sysfs "
                                 "queue/rotational is 1), more than one disk can seek: a cache "
                                 "(or an array of disks) served them",
                                 id, test, t.transfers_per_sec())});
    }
    if (!facts.block_device && facts.limit.bytes_per_sec == 0 && !facts.limit.memory_backed &&
        bw > kMemoryLikeBytesPerSec) {
      out.push_back({"memory_speed",
                     fmt::format("{} {}: {} on a file is memory bandwidth, more than a storage "
                                 "link carries: a cache served it",
                                 id, test, mb(bw))});
    }
  }
  return out;
}

}  // namespace diskcond::rawio
