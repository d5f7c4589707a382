// Cost of one DiskModel::submit, the work the conditioner adds to every request.
#include <benchmark/benchmark.h>

#include <random>

#include "core/disk_model.h"
#include "core/units.h"

namespace diskcond {
namespace {

void BM_Submit(benchmark::State& state, size_t profile_index, bool random) {
  const Profile& profile = builtin_profiles()[profile_index];
  DiskModel model(profile, 500 * kGiB);
  std::mt19937_64 rng(1);
  int64_t now = 0;
  uint64_t offset = 0;
  for (auto _ : state) {
    offset = random ? (rng() % (500 * kGiB / 4096)) * 4096 : offset + 4096;
    benchmark::DoNotOptimize(model.submit({Op::kRead, offset, 4096, now}));
    now += 1000;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_SubmitContended(benchmark::State& state) {
  static DiskModel* model = nullptr;
  if (state.thread_index() == 0) model = new DiskModel(builtin_profiles()[7], 500 * kGiB);
  int64_t now = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model->submit({Op::kWrite, 0, 4096, now}));
    now += 1000;
  }
  if (state.thread_index() == 0) {
    delete model;
    model = nullptr;
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK_CAPTURE(BM_Submit, ssd_qd256_random, 7, true);
BENCHMARK_CAPTURE(BM_Submit, ssd_qd32_random, 3, true);
BENCHMARK_CAPTURE(BM_Submit, hdd_random, 0, true);
BENCHMARK_CAPTURE(BM_Submit, hdd_sequential, 0, false);
BENCHMARK(BM_SubmitContended)->Threads(2);

}  // namespace
}  // namespace diskcond
