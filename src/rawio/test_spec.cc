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

bool is_write(TestKind kind) {
  return kind == TestKind::kRandomWrite || kind == TestKind::kSequentialWrite;
}

bool is_random(TestKind kind) {
  return kind == TestKind::kRandomRead || kind == TestKind::kRandomWrite;
}

}  // namespace diskcond::rawio
