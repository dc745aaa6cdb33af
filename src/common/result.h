// Result<T>: either a value of type T or a non-OK Status (Arrow's Result, absl's StatusOr).
//
// Thread-safety: like T; a const Result may be read from several threads.
#pragma once

#include <cassert>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

#include "common/status.h"

namespace quiver {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<T, Status>, "use Status directly");

 public:
  // REQUIRES: !status.ok() (an OK status without a value is a programming error; it is turned
  // into an Internal error so that it cannot be mistaken for success).
  Result(Status status) : repr_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(repr_).ok()) {
      repr_ = Status::Internal("Result constructed from an OK status without a value");
    }
  }
  Result(T value) : repr_(std::move(value)) {}  // NOLINT: implicit by design
  template <typename U, typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                                    !std::is_same_v<std::decay_t<U>, Status> &&
                                                    !std::is_same_v<std::decay_t<U>, T>>>
  Result(U&& value) : repr_(T(std::forward<U>(value))) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(repr_); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(repr_); }

  // REQUIRES: ok().
  const T& value() const& { return Checked(); }
  T& value() & { return Checked(); }
  T&& value() && { return std::move(Checked()); }
  const T& operator*() const& { return Checked(); }
  T& operator*() & { return Checked(); }
  T&& operator*() && { return std::move(Checked()); }
  const T* operator->() const { return &Checked(); }
  T* operator->() { return &Checked(); }

  T ValueOr(T fallback) const& { return ok() ? std::get<T>(repr_) : std::move(fallback); }

 private:
  T& Checked() {
    if (!ok()) std::abort();  // a caller read a value it did not check for
    return std::get<T>(repr_);
  }
  const T& Checked() const {
    if (!ok()) std::abort();
    return std::get<T>(repr_);
  }

  std::variant<Status, T> repr_;
};

}  // namespace quiver

#define QV_CONCAT_INNER(a, b) a##b
#define QV_CONCAT(a, b) QV_CONCAT_INNER(a, b)

// QV_ASSIGN_OR_RETURN(auto x, Compute()); / QV_ASSIGN_OR_RETURN(existing, Compute());
// Evaluates the Result expression; returns its status if not OK, else moves the value into lhs.
#define QV_ASSIGN_OR_RETURN(lhs, rexpr) \
  QV_ASSIGN_OR_RETURN_IMPL(QV_CONCAT(_qv_result_, __LINE__), lhs, rexpr)
#define QV_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                             \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
