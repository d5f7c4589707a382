#include "rawio/test_spec.h"

namespace diskcond::rawio {

std::string_view test_code(TestKind kind) {
  switch (kind) {
    case TestKind::kRandomRead:
      return "RR";
    case TestKind::kSequentialRead:
      return "SR";
    case TestKind::kRandomWrite:
      return "RW";
    case TestKind::kSequentialWrite:
      return "SW";
  }
  return "??";
}

std::string_view test_title(TestKind kind) {
  switch (kind) {
    case TestKind::kRandomRead:
      return "Random read";
    case TestKind::kSequentialRead:
      return "Sequential read";
    case TestKind::kRandomWrite:
      return "Random write";
    case TestKind::kSequentialWrite:
      return "Sequential write";
  }
  return "?";
}

std::string_view test_key(TestKind kind) {
  switch (kind) {
    case TestKind::kRandomRead:
      return "random_read";
    case TestKind::kSequentialRead:
      return "sequential_read";
    case TestKind::kRandomWrite:
      return "random_write";
    case TestKind::kSequentialWrite:
      return "sequential_write";
  }
  return "?";
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
