// Little-endian load/store helpers shared by the codecs in this directory (internal): Lance
// stores every integer little-endian; the loads are common/little_endian.h's.
// Thread-safety: pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/little_endian.h"

namespace quiver::format::codecs::internal {

// The loads and stores are common/little_endian.h's (this namespace's callers name them
// unqualified).
using ::quiver::LoadLE;
using ::quiver::StoreLE;

template <typename T>
inline bool IsAlignedFor(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

}  // namespace quiver::format::codecs::internal
