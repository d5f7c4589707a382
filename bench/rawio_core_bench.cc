// Micro-benchmarks of rawio's hot path pieces: what each transfer costs in the core.
#include <benchmark/benchmark.h>

#include "rawio/interval_histograms.h"
#include "rawio/interval_log.h"
#include "rawio/latency_histogram.h"
#include "rawio/offsets.h"

namespace diskcond::rawio {
namespace {

void BM_RawioHistogramRecord(benchmark::State& state) {
  LatencyHistogram h;
  uint64_t v = 12345;
  for (auto _ : state) {
    h.record(v);
    v = v * 6364136223846793005ull + 1442695040888963407ull;
    v >>= 40;  // values up to ~16 ms
  }
  benchmark::DoNotOptimize(h.count());
}
BENCHMARK(BM_RawioHistogramRecord);

void BM_RawioRandomOffset(benchmark::State& state) {
  OffsetGenerator gen(true, 1ull << 40, 4096, 8, 0, 1);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_RawioRandomOffset);

void BM_RawioSequentialOffset(benchmark::State& state) {
  OffsetGenerator gen(false, 1ull << 40, 4096, 8, 0, 1);
  for (auto _ : state) benchmark::DoNotOptimize(gen.next());
}
BENCHMARK(BM_RawioSequentialOffset);

void BM_RawioIntervalAdd(benchmark::State& state) {
  IntervalLog log(11);
  log.start(0);
  int64_t now = 0;
  for (auto _ : state) {
    log.add(now, 4096);
    now += 1000;
    if (now > 10'000'000'000) now = 0;
  }
}
BENCHMARK(BM_RawioIntervalAdd);

// What a worker does per completion: the second's bytes and its latency in that second's
// histogram (a new second every 10^6 transfers, whose drain is counted too).
void BM_RawioIntervalLatencyRecord(benchmark::State& state) {
  IntervalLog log(11);
  IntervalHistograms latency(11);
  log.start(0);
  int64_t now = 0;
  uint64_t v = 12345;
  for (auto _ : state) {
    latency.record(log.add(now, 4096), v);
    v = v * 6364136223846793005ull + 1442695040888963407ull;
    v >>= 40;  // values up to ~16 ms
    now += 1000;
    if (now > 10'000'000'000) now = 0;
  }
}
BENCHMARK(BM_RawioIntervalLatencyRecord);

}  // namespace
}  // namespace diskcond::rawio
