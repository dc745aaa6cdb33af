// Sinks and sources over strings, Buffers and file descriptors (see io.h).
#include "arrow/ipc/io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace quiver::arrow::ipc {

Status StringSink::Write(std::string_view bytes) {
  out_->append(bytes);
  return Status::OK();
}

Status FdSink::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return StatusFromErrno(errno, "writing arrow IPC output");
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

Result<std::shared_ptr<Buffer>> BufferInputStream::Read(uint64_t n) {
  const uint64_t take = std::min<uint64_t>(n, buffer_->size() - position_);
  auto out = Buffer::Slice(buffer_, position_, take);
  position_ += take;
  return out;
}

namespace {

// Up to `n` bytes from `read` (0: the end), through a fixed chunk so that memory follows the
// bytes that really arrive, not a length prefix that may lie.
template <class Read>
Result<std::shared_ptr<Buffer>> ReadThroughChunks(uint64_t n, MemoryPool* pool, Read&& read) {
  const uint64_t chunk_size = std::min<uint64_t>(n, 64 << 10);
  std::unique_ptr<char[]> chunk;
  BufferBuilder builder(pool);
  while (builder.size() < n) {
    if (chunk == nullptr) chunk = std::make_unique<char[]>(chunk_size);
    const uint64_t want = std::min<uint64_t>(n - builder.size(), chunk_size);
    QV_ASSIGN_OR_RETURN(uint64_t got, read(chunk.get(), want));
    if (got == 0) break;
    QV_RETURN_IF_ERROR(builder.Append(chunk.get(), got));
  }
  return builder.Finish();
}

}  // namespace

Result<std::shared_ptr<Buffer>> FdInputStream::Read(uint64_t n) {
  QV_ASSIGN_OR_RETURN(
      auto bytes, ReadThroughChunks(n, pool_, [this](char* dst, uint64_t max) -> Result<uint64_t> {
        while (true) {
          const ssize_t got = ::read(fd_, dst, max);
          if (got >= 0) return static_cast<uint64_t>(got);
          if (errno != EINTR) return StatusFromErrno(errno, "reading arrow IPC input");
        }
      }));
  position_ += bytes->size();
  return bytes;
}

Result<std::shared_ptr<Buffer>> CallbackInputStream::Read(uint64_t n) {
  QV_ASSIGN_OR_RETURN(auto bytes, ReadThroughChunks(n, pool_, read_));
  position_ += bytes->size();
  return bytes;
}

Result<std::shared_ptr<Buffer>> BufferSource::ReadAt(uint64_t offset, uint64_t length) const {
  if (offset > buffer_->size() || length > buffer_->size() - offset) {
    return Status::InvalidInput("read of " + std::to_string(length) + " bytes at " +
                                std::to_string(offset) + " beyond the " +
                                std::to_string(buffer_->size()) + "-byte source");
  }
  return Buffer::Slice(buffer_, offset, length);
}

Result<std::unique_ptr<FdSource>> FdSource::Open(int fd, MemoryPool* pool) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return StatusFromErrno(errno, "stat of arrow IPC file");
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidInput("an arrow IPC file must be a regular file (random access)");
  }
  return std::unique_ptr<FdSource>(new FdSource(fd, static_cast<uint64_t>(st.st_size), pool));
}

Result<std::shared_ptr<Buffer>> FdSource::ReadAt(uint64_t offset, uint64_t length) const {
  if (offset > size_ || length > size_ - offset) {
    return Status::InvalidInput("read of " + std::to_string(length) + " bytes at " +
                                std::to_string(offset) + " beyond the " + std::to_string(size_) +
                                "-byte file");
  }
  QV_ASSIGN_OR_RETURN(auto buffer, Buffer::Allocate(length, pool_));
  uint64_t done = 0;
  while (done < length) {
    const ssize_t got = ::pread(fd_, buffer->mutable_data() + done, length - done,
                                static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return StatusFromErrno(errno, "reading arrow IPC file");
    }
    if (got == 0) {
      return Status::IOError("arrow IPC file shrank while it was read (offset " +
                             std::to_string(offset + done) + ")");
    }
    done += static_cast<uint64_t>(got);
  }
  return buffer;
}

}  // namespace quiver::arrow::ipc
