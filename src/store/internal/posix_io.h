// POSIX file helpers for the local backend: an owning fd, whole-buffer write/read loops that
// retry EINTR and short transfers, directory fsync, mkdir -p that makes new directories durable,
// and opening a path below a root without following any symbolic link. Internal to store/.
// Thread-safety: functions are reentrant; a UniqueFd is owned by one thread at a time.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace quiver::store_internal {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset();

 private:
  int fd_ = -1;
};

Status WriteAll(int fd, std::string_view data, std::string_view what);
// Fills `dst` from byte `offset` with pread (retrying EINTR and short reads); Corruption if the
// file ends first.
Status ReadFull(int fd, uint64_t offset, std::span<std::byte> dst, std::string_view what);
// Reads [begin, end) with pread; Corruption if the file is shorter than `end`.
Result<std::string> ReadRange(int fd, uint64_t begin, uint64_t end, std::string_view what);
// fsync() of a directory, so that entries created/renamed in it survive a crash.
Status FsyncDir(const std::string& dir);
// Creates `dir` and missing parents (mode 0755) up to, not including, `stop_at` (which must
// exist). Each newly created directory's parent is fsynced. Existing directories are fine.
// `sync`: fsync each parent whose entries changed (false: leave it to the filesystem).
Status MkdirAll(const std::string& dir, const std::string& stop_at, bool sync = true);

// Nanoseconds since the epoch of a stat's mtime.
inline int64_t MtimeNanos(const struct stat& st) {
  return int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}

std::string ParentDir(const std::string& path);

// Opens `rel` (a relative path without "." or ".." segments; "" or a trailing '/' are fine)
// below the directory `root` without following a symbolic link at any component, the last one
// included: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the kernel has it (Linux 5.6),
// else a walk that opens each directory with O_NOFOLLOW. `root` itself is resolved as usual (it
// was canonicalised when the store was opened). Invalid fd with errno set on failure: ELOOP
// when a link is in the way (with O_PATH the fallback instead opens a final link itself, which
// fstat reports as S_ISLNK: callers that want an object check S_ISREG), ENOENT, ENOTDIR, ...
UniqueFd OpenBeneath(const std::string& root, std::string_view rel, int flags, mode_t mode = 0);
// Tests: false makes OpenBeneath take the O_NOFOLLOW walk, as on a kernel without openat2.
void UseOpenat2ForTesting(bool use);

// Creates the directories of `rel` below `root` (like MkdirAll) without following a symbolic
// link, and returns the innermost directory open (O_RDONLY | O_DIRECTORY). A link in the way is
// InvalidInput; a component that is an object is the "cannot also be a key prefix" InvalidInput.
// `sync`: fsync each directory whose entries changed.
Result<UniqueFd> MkdirBeneath(const std::string& root, std::string_view rel, bool sync);

}  // namespace quiver::store_internal
