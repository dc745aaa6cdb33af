// Buffers: immutable, shared byte regions (Arrow's Buffer), the memory pool that accounts for
// them, and a growable builder.
//
// A Buffer either owns an allocation from a MemoryPool (64-byte aligned, padded with zeros to a
// multiple of 64 bytes so vectorised kernels may read past the logical end), or aliases bytes
// owned by something else (a read region, a std::string, a parent buffer) that it keeps alive.
// Aliasing is how decoders hand out zero-copy slices of pages they read.
//
// MemoryPool counts bytes currently allocated and the peak, and can refuse allocations above a
// limit (the bounded-memory tests and scans use this); allocation failures are Status, never
// exceptions.
//
// Thread-safety: Buffer is immutable after construction and may be shared between threads
// (mutable_data() is only for the single owner that is still filling it). MemoryPool is
// thread-safe. BufferBuilder is single-threaded.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace quiver::arrow {

inline constexpr size_t kBufferAlignment = 64;

class MemoryPool {
 public:
  // limit_bytes = 0: no limit.
  explicit MemoryPool(uint64_t limit_bytes = 0) : limit_(limit_bytes) {}
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // The process-wide pool used when none is given (no limit).
  static MemoryPool* Default();

  // 64-byte aligned, `size` rounded up to a multiple of 64; the padding is zeroed.
  // ServiceUnavailable (retryable: memory frees as other work finishes) when the limit would
  // be exceeded, IOError when the system is out of memory.
  Result<uint8_t*> Allocate(uint64_t size);
  // REQUIRES: ptr came from Allocate(size) on this pool.
  void Free(uint8_t* ptr, uint64_t size);

  uint64_t bytes_allocated() const { return allocated_.load(std::memory_order_relaxed); }
  uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  uint64_t limit() const { return limit_; }

 private:
  const uint64_t limit_;
  std::atomic<uint64_t> allocated_{0};
  std::atomic<uint64_t> peak_{0};
};

class Buffer {
 public:
  // A zero-filled buffer of `size` bytes from `pool` (nullptr: the default pool).
  static Result<std::shared_ptr<Buffer>> Allocate(uint64_t size, MemoryPool* pool = nullptr);
  // The same without the zero fill, for a buffer the caller overwrites whole before anything
  // reads it (a read of a data-file page: zeroing it first costs as much as the read's copy).
  // The alignment padding past `size` is still zeroed.
  static Result<std::shared_ptr<Buffer>> AllocateUninitialized(uint64_t size,
                                                               MemoryPool* pool = nullptr);
  // Takes ownership of `bytes` (no copy; not aligned: consumers must not assume alignment of
  // aliasing buffers).
  static std::shared_ptr<Buffer> FromString(std::string bytes);
  // A copy of `bytes` in a pool allocation (aligned).
  static Result<std::shared_ptr<Buffer>> CopyOf(std::string_view bytes, MemoryPool* pool = nullptr);
  // Aliases [data, data + size), keeping `owner` alive for as long as the buffer lives.
  static std::shared_ptr<Buffer> Wrap(const uint8_t* data, uint64_t size,
                                      std::shared_ptr<const void> owner);

  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  const uint8_t* data() const { return data_; }
  // REQUIRES: the caller is the only user and the buffer owns its allocation.
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }
  uint64_t size() const { return size_; }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }

  // A view of [offset, offset + length) of `parent` that keeps it alive.
  // REQUIRES: parent != nullptr; offset + length <= parent->size().
  static std::shared_ptr<Buffer> Slice(const std::shared_ptr<Buffer>& parent, uint64_t offset,
                                       uint64_t length);

  // Shrinks the logical size (the allocation is unchanged). REQUIRES: new_size <= size().
  void Truncate(uint64_t new_size) { size_ = new_size; }

 private:
  Buffer() = default;

  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  // Owned allocation (freed to pool_) or the owner of aliased memory.
  MemoryPool* pool_ = nullptr;
  uint64_t capacity_ = 0;
  std::shared_ptr<const void> owner_;
  friend class BufferBuilder;
};

// Accumulates bytes, growing geometrically, then hands them out as a Buffer.
class BufferBuilder {
 public:
  explicit BufferBuilder(MemoryPool* pool = nullptr);
  BufferBuilder(const BufferBuilder&) = delete;
  BufferBuilder& operator=(const BufferBuilder&) = delete;
  BufferBuilder(BufferBuilder&& other) noexcept;
  BufferBuilder& operator=(BufferBuilder&& other) noexcept;
  ~BufferBuilder();

  Status Reserve(uint64_t additional);
  Status Append(const void* data, uint64_t size);
  Status Append(std::string_view bytes) { return Append(bytes.data(), bytes.size()); }
  template <typename T>
  Status AppendValue(const T& value) {
    return Append(&value, sizeof(T));
  }
  // Appends `size` zero bytes.
  Status AppendZeros(uint64_t size);
  // Grows or shrinks to exactly `size` bytes (new bytes are zero).
  Status Resize(uint64_t size);

  // Grows the size by `size` bytes the caller already wrote past size() (after Reserve).
  // REQUIRES: size <= capacity() - size().
  void Advance(uint64_t size) { size_ += size; }

  uint64_t size() const { return size_; }
  uint64_t capacity() const { return capacity_; }
  uint8_t* mutable_data() { return data_; }
  const uint8_t* data() const { return data_; }

  // The bytes so far as a Buffer; the builder is empty afterwards.
  Result<std::shared_ptr<Buffer>> Finish();

 private:
  void Release();

  MemoryPool* pool_;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t capacity_ = 0;
};

// ---- Validity bitmaps (LSB-first bit order, as Arrow) ----

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
}
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool v) { v ? SetBit(bits, i) : ClearBit(bits, i); }
inline int64_t BytesForBits(int64_t bits) { return (bits + 7) / 8; }
// Number of set bits in [offset, offset + length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);
// Sets bits [offset, offset + length) to 1 (whole bytes at a time in the middle).
void SetBitRange(uint8_t* bits, int64_t offset, int64_t length);
// Copies `length` bits from src (starting at src_offset) to dst (starting at dst_offset).
void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
              int64_t dst_offset);

}  // namespace quiver::arrow
