// Little-endian loads and appends of fixed-width integers, for the wire formats quiver reads
// and writes (Arrow IPC framing, Lance's files). quiver only targets little-endian hosts, so a
// load is a memcpy (safe at any alignment and under strict aliasing) that compiles to one move.
// Thread-safety: pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace quiver {

static_assert(std::endian::native == std::endian::little,
              "quiver's wire formats assume a little-endian host");

template <typename T>
inline T LoadLE(const void* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
inline void StoreLE(void* p, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(p, &v, sizeof(T));
}

// Appends the sizeof(T) bytes of `v` to `out`.
template <typename T>
inline void AppendLE(std::string* out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

}  // namespace quiver
