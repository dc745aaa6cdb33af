#include "store/internal/posix_io.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <vector>

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

namespace {

// The components of `rel`, empty ones (a trailing '/') dropped.
std::vector<std::string> Components(std::string_view rel) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    size_t end = slash == std::string_view::npos ? rel.size() : slash;
    if (end > start) out.emplace_back(rel.substr(start, end - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// Set once openat2 answered ENOSYS (an older kernel, or a seccomp filter that hides it), or
// EPERM even for the root itself (a filter that refuses it).
std::atomic<bool> no_openat2{false};

}  // namespace

void UseOpenat2ForTesting(bool use) { no_openat2.store(!use, std::memory_order_relaxed); }

UniqueFd OpenBeneath(const std::string& root, std::string_view rel, int flags, mode_t mode) {
  std::vector<std::string> parts = Components(rel);
  UniqueFd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root_fd.valid()) return root_fd;
  if (parts.empty()) {
    // The root itself: reopen it with the caller's flags.
    return UniqueFd(::openat(root_fd.get(), ".", flags | O_CLOEXEC, mode));
  }
  if (!no_openat2.load(std::memory_order_relaxed)) {
    std::string joined;
    for (const std::string& part : parts) {
      if (!joined.empty()) joined += '/';
      joined += part;
    }
    struct open_how how = {};
    how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
    how.mode = (flags & (O_CREAT | O_TMPFILE)) != 0 ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd;
    do {
      fd = ::syscall(SYS_openat2, root_fd.get(), joined.c_str(), &how, sizeof(how));
    } while (fd < 0 && (errno == EINTR || errno == EAGAIN));
    if (fd >= 0) return UniqueFd(static_cast<int>(fd));
    if (errno == EPERM) {
      // Some container runtimes' seccomp filters (Docker before 20.10) answer EPERM rather than
      // ENOSYS for a system call they do not know. openat2 is unusable when even opening the
      // root itself is refused that way; otherwise the EPERM is the file's own.
      const int err = errno;
      struct open_how probe = {};
      probe.flags = O_PATH | O_CLOEXEC;
      long p = ::syscall(SYS_openat2, root_fd.get(), ".", &probe, sizeof(probe));
      if (p >= 0) {
        ::close(static_cast<int>(p));
        errno = err;
        return UniqueFd(-1);
      }
      if (errno != EPERM && errno != ENOSYS) {
        errno = err;
        return UniqueFd(-1);
      }
    } else if (errno != ENOSYS) {
      return UniqueFd(-1);
    }
    no_openat2.store(true, std::memory_order_relaxed);
  }
  // Fallback: one directory at a time, never through a link.
  UniqueFd dir = std::move(root_fd);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    UniqueFd next(::openat(dir.get(), parts[i].c_str(), kDirFlags));
    if (!next.valid()) return next;
    dir = std::move(next);
  }
  return UniqueFd(::openat(dir.get(), parts.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode));
}

Result<UniqueFd> MkdirBeneath(const std::string& root, std::string_view rel, bool sync) {
  std::vector<std::string> parts = Components(rel);
  UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return StatusFromErrno(errno, fmt::format("opening directory {}", root));
  std::string done;  // the components walked so far, for messages
  for (const std::string& part : parts) {
    done += done.empty() ? part : "/" + part;
    UniqueFd next(::openat(dir.get(), part.c_str(), kDirFlags));
    if (!next.valid() && errno == ENOENT) {
      if (::mkdirat(dir.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
        return StatusFromErrno(errno, fmt::format("creating directory {}/{}", root, done));
      }
      if (sync && ::fsync(dir.get()) != 0) {
        return StatusFromErrno(errno, fmt::format("fsync of the parent of {}/{}", root, done));
      }
      next = UniqueFd(::openat(dir.get(), part.c_str(), kDirFlags));
    }
    if (!next.valid()) {
      int err = errno;
      struct stat st;
      bool link =
          ::fstatat(dir.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
      if (err == ELOOP || link) {
        return Status::InvalidInput(fmt::format(
            "'{}' is a symbolic link; the local backend does not follow links below its root",
            done));
      }
      if (err == ENOTDIR) {
        return Status::InvalidInput(fmt::format(
            "'{}' is an object, so it cannot also be a key prefix on the local backend", done));
      }
      return StatusFromErrno(err, fmt::format("opening directory {}/{}", root, done));
    }
    dir = std::move(next);
  }
  return dir;
}

}  // namespace quiver::store_internal
