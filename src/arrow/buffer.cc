#include "arrow/buffer.h"

#include <algorithm>
#include <bit>
#include <cstdlib>

namespace quiver::arrow {

namespace {

uint64_t RoundUpToAlignment(uint64_t size) {
  return (size + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

// Shared empty allocation: zero-size buffers never touch the pool.
alignas(kBufferAlignment) uint8_t kZeroPadding[kBufferAlignment] = {};

}  // namespace

MemoryPool* MemoryPool::Default() {
  static MemoryPool pool;
  return &pool;
}

Result<uint8_t*> MemoryPool::Allocate(uint64_t size) {
  if (size == 0) return kZeroPadding;
  uint64_t rounded = RoundUpToAlignment(size);
  if (rounded < size) return Status::InvalidInput("allocation size overflows");
  uint64_t now = allocated_.fetch_add(rounded, std::memory_order_relaxed) + rounded;
  if (limit_ != 0 && now > limit_) {
    allocated_.fetch_sub(rounded, std::memory_order_relaxed);
    return Status::ServiceUnavailable("memory limit of " + std::to_string(limit_) +
                                      " bytes exceeded (allocating " + std::to_string(rounded) +
                                      " with " + std::to_string(now - rounded) + " in use)");
  }
  void* p = std::aligned_alloc(kBufferAlignment, rounded);
  if (p == nullptr) {
    allocated_.fetch_sub(rounded, std::memory_order_relaxed);
    return Status::IOError("out of memory allocating " + std::to_string(rounded) + " bytes");
  }
  // Zero the padding tail so kernels that read whole 64-byte blocks see deterministic bytes.
  std::memset(static_cast<uint8_t*>(p) + size, 0, rounded - size);
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return static_cast<uint8_t*>(p);
}

void MemoryPool::Free(uint8_t* ptr, uint64_t size) {
  if (size == 0 || ptr == kZeroPadding) return;
  std::free(ptr);
  allocated_.fetch_sub(RoundUpToAlignment(size), std::memory_order_relaxed);
}

Result<std::shared_ptr<Buffer>> Buffer::Allocate(uint64_t size, MemoryPool* pool) {
  QV_ASSIGN_OR_RETURN(auto buffer, AllocateUninitialized(size, pool));
  std::memset(buffer->mutable_data(), 0, size);
  return buffer;
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateUninitialized(uint64_t size, MemoryPool* pool) {
  if (pool == nullptr) pool = MemoryPool::Default();
  QV_ASSIGN_OR_RETURN(uint8_t * data, pool->Allocate(size));
  std::shared_ptr<Buffer> buffer(new Buffer());
  buffer->data_ = data;
  buffer->size_ = size;
  buffer->capacity_ = size;
  buffer->pool_ = pool;
  return buffer;
}

std::shared_ptr<Buffer> Buffer::FromString(std::string bytes) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  return Wrap(reinterpret_cast<const uint8_t*>(owner->data()), owner->size(), owner);
}

Result<std::shared_ptr<Buffer>> Buffer::CopyOf(std::string_view bytes, MemoryPool* pool) {
  QV_ASSIGN_OR_RETURN(auto buffer, Allocate(bytes.size(), pool));
  if (!bytes.empty()) std::memcpy(buffer->mutable_data(), bytes.data(), bytes.size());
  return buffer;
}

std::shared_ptr<Buffer> Buffer::Wrap(const uint8_t* data, uint64_t size,
                                     std::shared_ptr<const void> owner) {
  std::shared_ptr<Buffer> buffer(new Buffer());
  buffer->data_ = data;
  buffer->size_ = size;
  buffer->owner_ = std::move(owner);
  return buffer;
}

std::shared_ptr<Buffer> Buffer::Slice(const std::shared_ptr<Buffer>& parent, uint64_t offset,
                                      uint64_t length) {
  return Wrap(parent->data() + offset, length, parent);
}

Buffer::~Buffer() {
  if (pool_ != nullptr) pool_->Free(const_cast<uint8_t*>(data_), capacity_);
}

BufferBuilder::BufferBuilder(MemoryPool* pool)
    : pool_(pool != nullptr ? pool : MemoryPool::Default()) {}

BufferBuilder::BufferBuilder(BufferBuilder&& other) noexcept
    : pool_(other.pool_), data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
  other.data_ = nullptr;
  other.size_ = other.capacity_ = 0;
}

BufferBuilder& BufferBuilder::operator=(BufferBuilder&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    data_ = other.data_;
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  return *this;
}

BufferBuilder::~BufferBuilder() { Release(); }

void BufferBuilder::Release() {
  if (data_ != nullptr) pool_->Free(data_, capacity_);
  data_ = nullptr;
  size_ = capacity_ = 0;
}

Status BufferBuilder::Reserve(uint64_t additional) {
  uint64_t needed = size_ + additional;
  if (needed < size_) return Status::InvalidInput("buffer size overflows");
  if (needed <= capacity_) return Status::OK();
  uint64_t capacity = std::max<uint64_t>({needed, capacity_ * 2, kBufferAlignment});
  QV_ASSIGN_OR_RETURN(uint8_t * data, pool_->Allocate(capacity));
  if (size_ > 0) std::memcpy(data, data_, size_);
  if (data_ != nullptr) pool_->Free(data_, capacity_);
  data_ = data;
  capacity_ = capacity;
  return Status::OK();
}

Status BufferBuilder::Append(const void* data, uint64_t size) {
  if (size == 0) return Status::OK();
  if (Status s = Reserve(size); !s.ok()) return s;
  std::memcpy(data_ + size_, data, size);
  size_ += size;
  return Status::OK();
}

Status BufferBuilder::AppendZeros(uint64_t size) {
  if (size == 0) return Status::OK();
  if (Status s = Reserve(size); !s.ok()) return s;
  std::memset(data_ + size_, 0, size);
  size_ += size;
  return Status::OK();
}

Status BufferBuilder::Resize(uint64_t size) {
  if (size > size_) return AppendZeros(size - size_);
  size_ = size;
  return Status::OK();
}

Result<std::shared_ptr<Buffer>> BufferBuilder::Finish() {
  std::shared_ptr<Buffer> buffer(new Buffer());
  if (data_ == nullptr) {
    buffer->data_ = kZeroPadding;
    return buffer;
  }
  // Zero the slack after size_ so the buffer's padding is deterministic.
  std::memset(data_ + size_, 0, capacity_ - size_);
  buffer->data_ = data_;
  buffer->size_ = size_;
  buffer->capacity_ = capacity_;
  buffer->pool_ = pool_;
  data_ = nullptr;
  size_ = capacity_ = 0;
  return buffer;
}

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  while (i < end && (i & 7) != 0) count += GetBit(bits, i++);
  while (i + 64 <= end) {
    uint64_t word;
    std::memcpy(&word, bits + (i >> 3), 8);
    count += std::popcount(word);
    i += 64;
  }
  while (i < end) count += GetBit(bits, i++);
  return count;
}

void SetBitRange(uint8_t* bits, int64_t offset, int64_t length) {
  int64_t i = offset;
  const int64_t end = offset + length;
  while (i < end && (i & 7) != 0) SetBit(bits, i++);
  if (end - i >= 8) {
    std::memset(bits + (i >> 3), 0xFF, static_cast<size_t>((end - i) >> 3));
    i += (end - i) & ~int64_t{7};
  }
  while (i < end) SetBit(bits, i++);
}

void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
              int64_t dst_offset) {
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    int64_t whole = length / 8;
    // (memcpy of 0 bytes still requires valid pointers; empty builders have none.)
    if (whole > 0) std::memcpy(dst + dst_offset / 8, src + src_offset / 8, whole);
    for (int64_t i = whole * 8; i < length; ++i) {
      SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
    }
    return;
  }
  for (int64_t i = 0; i < length; ++i) {
    SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
  }
}

}  // namespace quiver::arrow
