#include "store/internal/posix_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

namespace quiver::store_internal {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = other.release();
  }
  return *this;
}

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status WriteAll(int fd, std::string_view data, std::string_view what) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return StatusFromErrno(errno, fmt::format("writing {}", what));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return Status::OK();
}

Status ReadFull(int fd, uint64_t offset, std::span<std::byte> dst, std::string_view what) {
  size_t done = 0;
  while (done < dst.size()) {
    ssize_t n =
        ::pread(fd, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return StatusFromErrno(errno, fmt::format("reading {}", what));
    }
    if (n == 0) {
      return Status::Corruption(fmt::format("{} ended at byte {}, expected {}", what, offset + done,
                                            offset + dst.size()));
    }
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Result<std::string> ReadRange(int fd, uint64_t begin, uint64_t end, std::string_view what) {
  std::string out(end - begin, '\0');
  QV_RETURN_IF_ERROR(ReadFull(fd, begin, std::as_writable_bytes(std::span(out)), what));
  return out;
}

Status FsyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return StatusFromErrno(errno, fmt::format("opening directory {}", dir));
  UniqueFd guard(fd);
  if (::fsync(fd) != 0) return StatusFromErrno(errno, fmt::format("fsync of directory {}", dir));
  return Status::OK();
}

std::string ParentDir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status MkdirAll(const std::string& dir, const std::string& stop_at, bool sync) {
  if (dir.size() <= stop_at.size()) return Status::OK();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::OK();
    return Status(StatusCode::kInvalidInput,
                  fmt::format("'{}' is an object, so it cannot also be a key prefix on the local "
                              "backend",
                              dir.substr(stop_at.size() + 1)));
  }
  std::string parent = ParentDir(dir);
  QV_RETURN_IF_ERROR(MkdirAll(parent, stop_at, sync));
  if (::mkdir(dir.c_str(), 0755) != 0) {
    if (errno == EEXIST) {
      // Lost a race with another creator (fine) unless it is a file.
      if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::OK();
      return Status::InvalidInput(
          fmt::format("'{}' is an object, so it cannot also be a key prefix on the local backend",
                      dir.substr(stop_at.size() + 1)));
    }
    if (errno == ENOTDIR) {
      return Status::InvalidInput(fmt::format(
          "a parent of '{}' is an object, so it cannot also be a key prefix on the local backend",
          dir.substr(stop_at.size() + 1)));
    }
    return StatusFromErrno(errno, fmt::format("creating directory {}", dir));
  }
  return sync ? FsyncDir(parent) : Status::OK();
}

}  // namespace quiver::store_internal
