#include "format/internal/codecs/fastlanes.h"

#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <utility>

namespace quiver::format::codecs {
namespace {

constexpr std::array<int, 8> kOrder = {0, 4, 2, 6, 1, 5, 3, 7};

#define QV_FL_INLINE inline __attribute__((always_inline))

// 16-byte vectors of T (GCC/Clang vector extension; SSE2 on the x86-64 baseline).
template <typename T>
struct Vec16;
template <>
struct Vec16<uint8_t> {
  typedef uint8_t type __attribute__((vector_size(16)));
};
template <>
struct Vec16<uint16_t> {
  typedef uint16_t type __attribute__((vector_size(16)));
};
template <>
struct Vec16<uint32_t> {
  typedef uint32_t type __attribute__((vector_size(16)));
};
template <>
struct Vec16<uint64_t> {
  typedef uint64_t type __attribute__((vector_size(16)));
};

// Kernels for one (T, W). The 1024/T lanes are processed 16 bytes at a time (one SSE register;
// GCC's vector extension keeps this portable), and the T rows are fully unrolled at compile
// time, so every shift amount, word index and output offset is a constant. Per 16-byte lane
// group, row r reads packed word k = r*W / T (and k+1 when the value straddles a word boundary;
// repeated loads of the same word are merged by the compiler) and writes 16 bytes of output at
// value index Index(r) + lane.
template <typename T, int W>
struct Kernel {
  static constexpr int kT = kWordBits<T>;
  static constexpr int kLanes = 1024 / kT;
  static constexpr int kVecLanes = 16 / static_cast<int>(sizeof(T));
  static constexpr T kMask = W >= kT ? static_cast<T>(~T{0}) : static_cast<T>((T{1} << W) - 1);
  using V = typename Vec16<T>::type;

  static constexpr int Index(int row) { return 128 * (row % 8) + 16 * kOrder[row / 8]; }

  static QV_FL_INLINE V Load(const T* p) {
    V v;
    std::memcpy(&v, p, sizeof(V));
    return v;
  }
  static QV_FL_INLINE void Store(T* p, V v) { std::memcpy(p, &v, sizeof(V)); }

  template <int R>
  static QV_FL_INLINE void UnpackRow(const T* __restrict packed, T* __restrict out) {
    constexpr int kStart = R * W;
    constexpr int kWord = kStart / kT;
    constexpr int kShift = kStart % kT;
    const V lo = Load(packed + kLanes * kWord);
    V v;
    if constexpr (W == kT) {
      v = lo;
    } else if constexpr (kShift + W <= kT) {
      v = (lo >> kShift) & kMask;
    } else {
      const V hi = Load(packed + kLanes * (kWord + 1));
      v = ((lo >> kShift) | (hi << (kT - kShift))) & kMask;
    }
    Store(out + Index(R), v);
  }

  // Packed word k is written once, by the row that starts it (shift 0) or by the row that
  // straddles into it from word k-1; later rows OR into it. The partial word lives in `acc`.
  template <int R>
  static QV_FL_INLINE void PackRow(const T* __restrict in, T* __restrict packed, V& acc) {
    constexpr int kStart = R * W;
    constexpr int kWord = kStart / kT;
    constexpr int kShift = kStart % kT;
    const V v = Load(in + Index(R)) & kMask;
    if constexpr (kShift == 0) {
      acc = v;
    } else {
      acc |= v << kShift;
    }
    if constexpr (kShift + W >= kT) {  // word kWord is complete
      Store(packed + kLanes * kWord, acc);
      if constexpr (kShift + W > kT) acc = v >> (kT - kShift);
    }
  }

  template <size_t... R>
  static QV_FL_INLINE void UnpackRows(const T* __restrict packed, T* __restrict out,
                                      std::index_sequence<R...>) {
    (UnpackRow<static_cast<int>(R)>(packed, out), ...);
  }
  template <size_t... R>
  static QV_FL_INLINE void PackRows(const T* __restrict in, T* __restrict packed, V& acc,
                                    std::index_sequence<R...>) {
    (PackRow<static_cast<int>(R)>(in, packed, acc), ...);
  }

  static void Unpack(const T* __restrict packed, T* __restrict out) {
    if constexpr (W == 0) {
      std::memset(out, 0, kFastLanesBlockValues * sizeof(T));
    } else {
      for (int c = 0; c < kLanes; c += kVecLanes) {
        UnpackRows(packed + c, out + c, std::make_index_sequence<kT>{});
      }
    }
  }
  static void Pack(const T* __restrict in, T* __restrict packed) {
    if constexpr (W != 0) {
      for (int c = 0; c < kLanes; c += kVecLanes) {
        V acc{};
        PackRows(in + c, packed + c, acc, std::make_index_sequence<kT>{});
      }
    }
  }
};

template <typename T>
using UnpackFn = void (*)(const T*, T*);
template <typename T>
using PackFn = void (*)(const T*, T*);

template <typename T, size_t... W>
constexpr std::array<UnpackFn<T>, sizeof...(W)> MakeUnpackTable(std::index_sequence<W...>) {
  return {&Kernel<T, static_cast<int>(W)>::Unpack...};
}
template <typename T, size_t... W>
constexpr std::array<PackFn<T>, sizeof...(W)> MakePackTable(std::index_sequence<W...>) {
  return {&Kernel<T, static_cast<int>(W)>::Pack...};
}

template <typename T>
constexpr auto kUnpackTable = MakeUnpackTable<T>(std::make_index_sequence<kWordBits<T> + 1>{});
template <typename T>
constexpr auto kPackTable = MakePackTable<T>(std::make_index_sequence<kWordBits<T> + 1>{});

}  // namespace

template <typename T>
void Unpack(const T* packed, int width, T* out1024) {
  if (static_cast<unsigned>(width) > static_cast<unsigned>(kWordBits<T>)) {
    assert(false && "FastLanes width out of range");
    std::memset(out1024, 0, kFastLanesBlockValues * sizeof(T));
    return;
  }
  kUnpackTable<T>[width](packed, out1024);
}

template <typename T>
void Pack(const T* in1024, int width, T* packed) {
  if (static_cast<unsigned>(width) > static_cast<unsigned>(kWordBits<T>)) {
    assert(false && "FastLanes width out of range");
    return;
  }
  kPackTable<T>[width](in1024, packed);
}

template <typename T>
int BitWidthOf(const T* values, size_t n) {
  T acc = 0;
  for (size_t i = 0; i < n; ++i) acc = static_cast<T>(acc | values[i]);
  return static_cast<int>(std::bit_width(acc));
}

template void Unpack<uint8_t>(const uint8_t*, int, uint8_t*);
template void Unpack<uint16_t>(const uint16_t*, int, uint16_t*);
template void Unpack<uint32_t>(const uint32_t*, int, uint32_t*);
template void Unpack<uint64_t>(const uint64_t*, int, uint64_t*);
template void Pack<uint8_t>(const uint8_t*, int, uint8_t*);
template void Pack<uint16_t>(const uint16_t*, int, uint16_t*);
template void Pack<uint32_t>(const uint32_t*, int, uint32_t*);
template void Pack<uint64_t>(const uint64_t*, int, uint64_t*);
template int BitWidthOf<uint8_t>(const uint8_t*, size_t);
template int BitWidthOf<uint16_t>(const uint16_t*, size_t);
template int BitWidthOf<uint32_t>(const uint32_t*, size_t);
template int BitWidthOf<uint64_t>(const uint64_t*, size_t);

}  // namespace quiver::format::codecs
