// Little-endian load/store helpers shared by the codecs in this directory (internal).
//
// Lance stores every integer little-endian; quiver only targets little-endian hosts, so a load is
// a memcpy (safe at any alignment and under strict aliasing) that the compiler turns into one
// move instruction.
// Thread-safety: pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace quiver::format::codecs::internal {

static_assert(std::endian::native == std::endian::little,
              "the Lance codecs assume a little-endian host");

template <typename T>
inline T LoadLE(const uint8_t* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
inline void StoreLE(uint8_t* p, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
inline bool IsAlignedFor(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

}  // namespace quiver::format::codecs::internal
