#include "rawio/test_spec.h"

namespace diskcond::rawio {

namespace {

// Each test's names: its code in tables, its title over columns, its key in JSON.
struct TestNames {
  TestKind kind;
  std::string_view code, title, key;
};
constexpr TestNames kTestNames[] = {
    {TestKind::kRandomRead, "RR", "Random read", "random_read"},
    {TestKind::kSequentialRead, "SR", "Sequential read", "sequential_read"},
    {TestKind::kRandomWrite, "RW", "Random write", "random_write"},
    {TestKind::kSequentialWrite, "SW", "Sequential write", "sequential_write"},
};

const TestNames* names_of(TestKind kind) {
  for (const TestNames& n : kTestNames)
    if (n.kind == kind) return &n;
  return nullptr;
}

}  // namespace

std::string_view test_code(TestKind kind) {
  const TestNames* n = names_of(kind);
  return n ? n->code : "??";
}

std::string_view test_title(TestKind kind) {
  const TestNames* n = names_of(kind);
  return n ? n->title : "?";
}

std::string_view test_key(TestKind kind) {
  const TestNames* n = names_of(kind);
  return n ? n->key : "?";
}

std::string_view arrival_key(Arrival arrival) {
  return arrival == Arrival::kPoisson ? "poisson" : "fixed";
}

std::optional<Arrival> parse_arrival(std::string_view key) {
  for (Arrival a : {Arrival::kFixed, Arrival::kPoisson}) {
    if (key == arrival_key(a)) return a;
  }
  return std::nullopt;
}

bool is_write(TestKind kind) {
  return kind == TestKind::kRandomWrite || kind == TestKind::kSequentialWrite;
}

bool is_random(TestKind kind) {
  return kind == TestKind::kRandomRead || kind == TestKind::kRandomWrite;
}

}  // namespace diskcond::rawio
