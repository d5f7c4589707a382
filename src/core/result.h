// Result<T>: a value or a one-line error message. The domain layer's single error convention:
// nothing below the CLI throws; the CLI prints error() on one line and exits non-zero.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace diskcond {

struct Error {
  std::string message;
};

inline Error make_error(std::string message) {
  return Error{std::move(message)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error e) : v_(std::move(e)) {}      // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok().
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // REQUIRES: !ok().
  const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() {
  return Ok{};
}

}  // namespace diskcond
