// Must(): unwraps a Result a test uses as a fixture. A failure is reported and the test binary
// stops (a null array would only crash later, further from the cause).
//
// Thread-safety: a pure function.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

#include "common/result.h"

namespace quiver::arrow::testing {

template <typename T>
T Must(Result<T> r) {
  if (!r.ok()) {
    ADD_FAILURE() << r.status().ToString();
    std::abort();
  }
  return std::move(r).value();
}

}  // namespace quiver::arrow::testing
