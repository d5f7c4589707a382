// What fault rules cost when there are none (issue 15, "faults off means zero cost"): the device
// clock against the wall clock it wraps, and the rules' check on a request no rule concerns.
#include <benchmark/benchmark.h>

#include "core/clock.h"
#include "core/fault_rules.h"
#include "dmc/mount/device_clock.h"

namespace diskcond {
namespace {

void BM_WallClock(benchmark::State& state) {
  MonotonicClock wall;
  for (auto _ : state) benchmark::DoNotOptimize(wall.now_ns());
}
BENCHMARK(BM_WallClock);

// The mount's clock with no stall rule: the wall clock, one pointer and one lag load.
void BM_DeviceClockNoStall(benchmark::State& state) {
  MonotonicClock wall;
  FaultRules faults;
  mount::DeviceClock clock(wall);
  clock.attach(faults);
  const Clock& as_clock = clock;  // called through the interface, as the conditioner does
  for (auto _ : state) benchmark::DoNotOptimize(as_clock.now_ns());
}
BENCHMARK(BM_DeviceClockNoStall);

// A read with no rule for reads: FaultRules::wants, one relaxed load.
void BM_NoRuleForTheOperation(benchmark::State& state) {
  FaultRules faults;
  for (auto _ : state) benchmark::DoNotOptimize(faults.wants(FaultOp::kRead));
}
BENCHMARK(BM_NoRuleForTheOperation);

// The device clock while a stall rule is live (not the off path: for comparison).
void BM_DeviceClockStallRuleLive(benchmark::State& state) {
  MonotonicClock wall;
  FaultRules faults;
  mount::DeviceClock clock(wall);
  clock.attach(faults);
  auto rule = parse_fault_rule(std::vector<std::string>{"stall=1ms", "at=1s", "period=10s"});
  faults.add(*rule, wall.now_ns());
  const Clock& as_clock = clock;
  for (auto _ : state) benchmark::DoNotOptimize(as_clock.now_ns());
}
BENCHMARK(BM_DeviceClockStallRuleLive);

}  // namespace
}  // namespace diskcond
