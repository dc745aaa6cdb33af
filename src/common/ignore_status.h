// IgnoreStatus: drops a Status (or a Result's status) on purpose, saying why.
//
// `why` says why a failure is harmless there (best-effort cleanup whose leftovers a later pass
// removes, say). Every status the code base drops goes through this, so `grep -n IgnoreStatus`
// lists them all; nothing is dropped silently ([[nodiscard]] on Status and Result makes a bare
// call a warning, and warnings are errors).
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "common/result.h"
#include "common/status.h"

namespace quiver {

inline void IgnoreStatus(const Status& /*status*/, std::string_view /*why*/) {}
template <typename T>
void IgnoreStatus(const Result<T>& /*result*/, std::string_view /*why*/) {}

}  // namespace quiver
