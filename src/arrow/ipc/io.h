// Byte sinks and sources for the Arrow IPC reader and writer.
//
// Sink: where a writer appends bytes (a std::string, or a file descriptor).
// InputStream: sequential input for the stream reader (a Buffer in memory, or a file descriptor).
// RandomAccessSource: positioned input for the file reader (a Buffer in memory, or a file
// descriptor read with pread). The in-memory variants hand out zero-copy slices of their Buffer,
// so arrays read from them alias the input instead of copying it.
//
// Thread-safety: a Sink and an InputStream are used by one thread at a time.
// RandomAccessSource::ReadAt and size() are thread-safe (FileReader::ReadBatch relies on this).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "arrow/buffer.h"
#include "common/result.h"

namespace quiver::arrow::ipc {

class Sink {
 public:
  virtual ~Sink() = default;
  // Appends all of `bytes` or fails.
  virtual Status Write(std::string_view bytes) = 0;
};

// Appends to a std::string the caller owns (and keeps alive while the sink is used).
class StringSink final : public Sink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  Status Write(std::string_view bytes) override;

 private:
  std::string* out_;
};

// Writes to a file descriptor the caller owns (it is neither closed nor synced here).
class FdSink final : public Sink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}
  Status Write(std::string_view bytes) override;

 private:
  int fd_;
};

class InputStream {
 public:
  virtual ~InputStream() = default;
  // The next `n` bytes, or fewer only when the input ends first (empty at the end).
  virtual Result<std::shared_ptr<Buffer>> Read(uint64_t n) = 0;
  // Bytes consumed so far (error messages name this offset).
  virtual uint64_t position() const = 0;
};

// Reads a Buffer front to back, handing out slices of it (no copies).
class BufferInputStream final : public InputStream {
 public:
  explicit BufferInputStream(std::shared_ptr<Buffer> buffer) : buffer_(std::move(buffer)) {}
  Result<std::shared_ptr<Buffer>> Read(uint64_t n) override;
  uint64_t position() const override { return position_; }

 private:
  std::shared_ptr<Buffer> buffer_;
  uint64_t position_ = 0;
};

// Reads a file descriptor the caller owns (a file, a pipe, a socket). Memory for a read grows
// with the bytes that actually arrive, so a length prefix that lies cannot make it allocate
// more than the input holds.
class FdInputStream final : public InputStream {
 public:
  explicit FdInputStream(int fd, MemoryPool* pool = nullptr) : fd_(fd), pool_(pool) {}
  Result<std::shared_ptr<Buffer>> Read(uint64_t n) override;
  uint64_t position() const override { return position_; }

 private:
  int fd_;
  MemoryPool* pool_;
  uint64_t position_ = 0;
};

// Pulls bytes from a callback (a request body as it arrives, say): `read(dst, max)` copies 1 to
// `max` bytes into `dst` and returns how many, or 0 at the end. Memory grows with the bytes that
// arrive, as for FdInputStream.
class CallbackInputStream final : public InputStream {
 public:
  using ReadFn = std::function<Result<uint64_t>(char* dst, uint64_t max)>;
  explicit CallbackInputStream(ReadFn read, MemoryPool* pool = nullptr)
      : read_(std::move(read)), pool_(pool) {}
  Result<std::shared_ptr<Buffer>> Read(uint64_t n) override;
  uint64_t position() const override { return position_; }

 private:
  ReadFn read_;
  MemoryPool* pool_;
  uint64_t position_ = 0;
};

class RandomAccessSource {
 public:
  virtual ~RandomAccessSource() = default;
  virtual uint64_t size() const = 0;
  // Exactly the bytes [offset, offset + length); InvalidInput when the range is not inside
  // size(), IOError when the read fails.
  virtual Result<std::shared_ptr<Buffer>> ReadAt(uint64_t offset, uint64_t length) const = 0;
};

// A whole file already in memory; reads are zero-copy slices.
class BufferSource final : public RandomAccessSource {
 public:
  explicit BufferSource(std::shared_ptr<Buffer> buffer) : buffer_(std::move(buffer)) {}
  uint64_t size() const override { return buffer_->size(); }
  Result<std::shared_ptr<Buffer>> ReadAt(uint64_t offset, uint64_t length) const override;

 private:
  std::shared_ptr<Buffer> buffer_;
};

// A file descriptor the caller owns, read with pread into pool allocations. The size is taken
// once at Open (the file must not change while it is read).
class FdSource final : public RandomAccessSource {
 public:
  static Result<std::unique_ptr<FdSource>> Open(int fd, MemoryPool* pool = nullptr);
  uint64_t size() const override { return size_; }
  Result<std::shared_ptr<Buffer>> ReadAt(uint64_t offset, uint64_t length) const override;

 private:
  FdSource(int fd, uint64_t size, MemoryPool* pool) : fd_(fd), size_(size), pool_(pool) {}
  int fd_;
  uint64_t size_;
  MemoryPool* pool_;
};

}  // namespace quiver::arrow::ipc
