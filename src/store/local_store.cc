#include "store/local_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "common/ids.h"
#include "store/internal/dir_cache.h"
#include "store/internal/dir_syncer.h"
#include "store/internal/posix_io.h"
#include "store/key.h"

namespace quiver {

using store_internal::FsyncDir;
using store_internal::MkdirAll;
using store_internal::MkdirBeneath;
using store_internal::MtimeNanos;
using store_internal::OpenBeneath;
using store_internal::ParentDir;
using store_internal::UniqueFd;

namespace {

constexpr uint64_t kLockStripes = 4096;

uint64_t Fnv1a64(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string EtagOf(const struct stat& st) {
  return fmt::format("{:x}-{:x}-{:x}", static_cast<uint64_t>(st.st_ino),
                     static_cast<uint64_t>(MtimeNanos(st)), static_cast<uint64_t>(st.st_size));
}

ObjectMeta MetaOf(std::string key, const struct stat& st) {
  return ObjectMeta{std::move(key), static_cast<uint64_t>(st.st_size), EtagOf(st), MtimeNanos(st)};
}

Status SetMtime(int fd, int64_t stamp_nanos, std::string_view what) {
  timespec times[2];
  times[0].tv_sec = stamp_nanos / 1'000'000'000;
  times[0].tv_nsec = stamp_nanos % 1'000'000'000;
  times[1] = times[0];
  if (::futimens(fd, times) != 0) return StatusFromErrno(errno, fmt::format("stamping {}", what));
  return Status::OK();
}

// Opens the object file of `key` below `root` (with `flags`: O_RDONLY to read, O_PATH to stat)
// and stats it: NotFound for a missing key, a directory (a prefix of other keys is not an
// object) and a key whose path meets a symbolic link anywhere below the root (links are never
// followed: a link planted in a table must not lead into another table or out of the root).
Result<UniqueFd> OpenObject(const std::string& root, std::string_view key, int flags,
                            struct stat* st) {
  // O_NONBLOCK: opening a FIFO planted in place of an object must not wait for a writer (it is
  // refused below as not a file); it changes nothing for regular files. (O_PATH opens do not
  // wait, and openat2 refuses O_PATH with other flags.)
  UniqueFd fd = OpenBeneath(root, key, (flags & O_PATH) != 0 ? flags : flags | O_NONBLOCK);
  if (!fd.valid()) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EXDEV) {
      return Status::NotFound(fmt::format("object '{}' not found", key));
    }
    return StatusFromErrno(errno, fmt::format("opening {}/{}", root, key));
  }
  if (::fstat(fd.get(), st) != 0) {
    return StatusFromErrno(errno, fmt::format("stat {}/{}", root, key));
  }
  if (!S_ISREG(st->st_mode)) return Status::NotFound(fmt::format("object '{}' not found", key));
  return fd;
}

// The directory part of a key ("a/b" for "a/b/c", "" for "c") and its last segment.
std::string_view KeyDir(std::string_view key) {
  size_t slash = key.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash);
}
std::string_view KeyLeaf(std::string_view key) {
  size_t slash = key.rfind('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

Status NotAnObjectPrefix(std::string_view key) {
  return Status::InvalidInput(fmt::format(
      "'{}' is a prefix of other keys, so it cannot also be an object on the local backend", key));
}

}  // namespace

// Holds the flock of a key's lock stripe; released when destroyed (close drops the lock).
class LocalObjectStore::KeyLock {
 public:
  explicit KeyLock(UniqueFd fd) : fd_(std::move(fd)) {}

 private:
  UniqueFd fd_;
};

LocalObjectStore::LocalObjectStore(std::string root, LocalStoreOptions options)
    : root_(std::move(root)),
      tmp_dir_(root_ + "/" + std::string(kReservedSegment) + "/" + std::string(kTempSubdir)),
      lock_dir_(root_ + "/" + std::string(kReservedSegment) + "/locks"),
      options_(options) {
  if (options_.clock == nullptr) options_.clock = Clock::Real();
  if (options_.cache_listings) dir_cache_ = store_internal::DirListingCache::Create();
  dir_syncer_ = std::make_unique<store_internal::DirSyncer>();
}

LocalObjectStore::~LocalObjectStore() = default;

Result<std::shared_ptr<LocalObjectStore>> LocalObjectStore::Open(const std::string& root,
                                                                 LocalStoreOptions options) {
  if (root.empty()) return Status::InvalidInput("local store root is empty");
  if (root.find('\0') != std::string::npos) {
    return Status::InvalidInput("local store root contains a NUL byte");
  }
  std::string abs = root;
  if (abs.front() != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof(cwd)) == nullptr) {
      return StatusFromErrno(errno, "reading the working directory");
    }
    abs = std::string(cwd) + "/" + abs;
  }
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  struct stat st;
  if (::stat(abs.c_str(), &st) != 0) {
    if (errno != ENOENT) return StatusFromErrno(errno, fmt::format("opening store root {}", abs));
    if (!options.create_if_missing) {
      return Status::InvalidInput(fmt::format("store root {} does not exist", abs));
    }
    QV_RETURN_IF_ERROR(MkdirAll(abs, ""));
  } else if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidInput(fmt::format("store root {} is not a directory", abs));
  }
  char resolved[PATH_MAX];
  if (::realpath(abs.c_str(), resolved) == nullptr) {
    return StatusFromErrno(errno, fmt::format("resolving store root {}", abs));
  }
  // The reserved area is created on the first write, so that read-only use (inspecting a
  // dataset, perhaps on a read-only mount) leaves the directory untouched.
  return std::shared_ptr<LocalObjectStore>(new LocalObjectStore(resolved, options));
}

std::string LocalObjectStore::PathOf(std::string_view key) const {
  std::string path;
  path.reserve(root_.size() + 1 + key.size());
  path += root_;
  path += '/';
  path += key;
  return path;
}

Result<LocalObjectStore::KeyLock> LocalObjectStore::LockKey(std::string_view key) {
  std::string path = fmt::format("{}/{:03x}", lock_dir_, Fnv1a64(key) % kLockStripes);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid() && errno == ENOENT) {
    QV_RETURN_IF_ERROR(MkdirAll(lock_dir_, root_));
    fd = UniqueFd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  }
  if (!fd.valid()) return StatusFromErrno(errno, fmt::format("opening lock file {}", path));
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return StatusFromErrno(errno, fmt::format("locking {}", path));
  }
  return KeyLock(std::move(fd));
}

int64_t LocalObjectStore::NextStamp(int64_t at_least) {
  int64_t want = std::max(options_.clock->NowNanos(), at_least);
  int64_t last = last_stamp_.load();
  while (true) {
    int64_t stamp = std::max(want, last + 1);
    if (last_stamp_.compare_exchange_weak(last, stamp)) return stamp;
  }
}

Result<GetResult> LocalObjectStore::Get(std::string_view key, std::optional<ByteRange> range) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  struct stat st;
  QV_ASSIGN_OR_RETURN(UniqueFd fd, OpenObject(root_, key, O_RDONLY, &st));
  QV_ASSIGN_OR_RETURN(auto span, ResolveRange(range, static_cast<uint64_t>(st.st_size)));
  QV_ASSIGN_OR_RETURN(std::string data,
                      store_internal::ReadRange(fd.get(), span.first, span.second, path));
  return GetResult{std::move(data), MetaOf(std::string(key), st)};
}

Status LocalObjectStore::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  struct stat st;
  QV_ASSIGN_OR_RETURN(UniqueFd fd, OpenObject(root_, key, O_RDONLY, &st));
  QV_RETURN_IF_ERROR(CheckReadAtRange(key, offset, dst.size(), static_cast<uint64_t>(st.st_size)));
  // Published files are never modified in place (puts rename or link a new inode over the name),
  // so the size just checked holds for this fd; a shorter file is someone else's doing.
  return store_internal::ReadFull(fd.get(), offset, dst, path);
}

Result<ObjectMeta> LocalObjectStore::Head(std::string_view key) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  struct stat st;
  QV_ASSIGN_OR_RETURN(UniqueFd fd, OpenObject(root_, key, O_PATH, &st));
  return MetaOf(std::string(key), st);
}

struct LocalObjectStore::TempFile {
  std::string path;
  UniqueFd fd;  // open for writing
};

Status LocalObjectStore::CreateTempFile(TempFile* temp) {
  temp->path = tmp_dir_ + "/" + RandomHex(12);
  temp->fd = UniqueFd(::open(temp->path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!temp->fd.valid() && errno == ENOENT) {
    QV_RETURN_IF_ERROR(MkdirAll(tmp_dir_, root_));
    temp->fd = UniqueFd(::open(temp->path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  }
  if (!temp->fd.valid()) {
    return StatusFromErrno(errno, fmt::format("creating temp file {}", temp->path));
  }
  return Status::OK();
}

Result<ObjectMeta> LocalObjectStore::Put(std::string_view key, std::string_view data,
                                         const PutOptions& options) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  QV_RETURN_IF_ERROR(ValidatePutOptions(options));
  TempFile temp;
  QV_RETURN_IF_ERROR(CreateTempFile(&temp));
  if (Status s = store_internal::WriteAll(temp.fd.get(), data, temp.path); !s.ok()) {
    ::unlink(temp.path.c_str());
    return s;
  }
  return PublishTemp(key, temp, options);
}

Result<ObjectMeta> LocalObjectStore::PublishTemp(std::string_view key, TempFile& temp,
                                                 const PutOptions& options) {
  SyncPoints* sp = options_.sync_points;
  const std::string final_path = PathOf(key);
  const std::string parent = ParentDir(final_path);
  const std::string leaf(KeyLeaf(key));
  const std::string& tmp_path = temp.path;
  const int fd = temp.fd.get();

  // Step 1: the bytes, durable in the temp file. Errors clean the temp file up; a sync point that
  // stops the put (a simulated crash) leaves it, exactly as a real crash would.
  auto fail = [&tmp_path](Status s) {
    ::unlink(tmp_path.c_str());
    return s;
  };
  QV_SYNC_POINT(sp, store_points::kPutTempWritten);
  int64_t stamp = NextStamp(0);
  if (Status s = SetMtime(fd, stamp, tmp_path); !s.ok()) return fail(s);
  const bool durable = options.durable;
  if (durable && ::fsync(fd) != 0) {
    return fail(StatusFromErrno(errno, "fsync of " + tmp_path));
  }
  QV_SYNC_POINT(sp, store_points::kPutTempSynced);
  // The parent directory, created if missing and opened without following a link, so that the
  // publish below lands inside this root whatever links someone planted in the tree.
  Result<UniqueFd> parent_dir = MkdirBeneath(root_, KeyDir(key), durable);
  if (!parent_dir.ok()) return fail(parent_dir.status());
  const int dir_fd = parent_dir->get();

  // A writer's temp file can be swept while its writer sits idle (Sweep ages by ctime); then
  // link/rename find no source. Say so rather than report a bare ENOENT.
  auto vanished = [&] {
    return Status::IOError(fmt::format(
        "temp file {} of the put of '{}' vanished before publishing (swept while idle?)", tmp_path,
        key));
  };

  // Step 2: publish.
  if (options.mode == PutMode::kCreateOnly) {
    QV_SYNC_POINT(sp, store_points::kPutBeforePublish);
    if (::linkat(AT_FDCWD, tmp_path.c_str(), dir_fd, leaf.c_str(), 0) != 0) {
      int err = errno;
      struct stat existing;
      if (err == EEXIST && ::fstatat(dir_fd, leaf.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISDIR(existing.st_mode)) {
        return fail(NotAnObjectPrefix(key));
      }
      if (err == EEXIST)
        return fail(Status::AlreadyExists(fmt::format("object '{}' already exists", key)));
      if (err == ENOENT && ::access(tmp_path.c_str(), F_OK) != 0) return vanished();
      return fail(StatusFromErrno(err, fmt::format("linking {}", final_path)));
    }
    QV_SYNC_POINT(sp, store_points::kPutAfterPublish);
    ::unlink(tmp_path.c_str());
  } else {
    auto lock = LockKey(key);
    if (!lock.ok()) return fail(lock.status());
    struct stat current;
    bool exists = ::fstatat(dir_fd, leaf.c_str(), &current, AT_SYMLINK_NOFOLLOW) == 0;
    if (!exists && errno != ENOENT) return fail(StatusFromErrno(errno, "stat " + final_path));
    if (exists && S_ISLNK(current.st_mode)) {
      return fail(Status::InvalidInput(fmt::format(
          "'{}' is a symbolic link; the local backend does not follow or replace links", key)));
    }
    if (exists && !S_ISREG(current.st_mode)) return fail(NotAnObjectPrefix(key));
    if (options.mode == PutMode::kIfMatch) {
      if (!exists) {
        return fail(Status::Conflict(
            fmt::format("object '{}' does not exist (expected etag {})", key, options.if_match)));
      }
      std::string etag = EtagOf(current);
      if (etag != options.if_match) {
        return fail(Status::Conflict(fmt::format("object '{}' changed: etag is {}, expected {}",
                                                 key, etag, options.if_match)));
      }
    }
    // The new etag must differ from every earlier one of this key: make its mtime newer than
    // the object it replaces (rarely needed; clocks are fine-grained).
    if (exists && MtimeNanos(current) >= stamp) {
      stamp = NextStamp(MtimeNanos(current) + 1);
      if (Status s = SetMtime(fd, stamp, tmp_path); !s.ok()) return fail(s);
      if (durable && ::fsync(fd) != 0) {
        return fail(StatusFromErrno(errno, "fsync of " + tmp_path));
      }
    }
    QV_SYNC_POINT(sp, store_points::kPutBeforePublish);
    if (::renameat(AT_FDCWD, tmp_path.c_str(), dir_fd, leaf.c_str()) != 0) {
      int err = errno;
      if (err == EISDIR) return fail(NotAnObjectPrefix(key));
      if (err == ENOENT && ::access(tmp_path.c_str(), F_OK) != 0) return vanished();
      return fail(StatusFromErrno(err, fmt::format("renaming into {}", final_path)));
    }
    QV_SYNC_POINT(sp, store_points::kPutAfterPublish);
  }

  // Step 3: the directory entry, durable.
  struct stat st;
  if (::fstat(fd, &st) != 0) return StatusFromErrno(errno, "stat of " + final_path);
  temp.fd.reset();
  // Concurrent puts into one directory share a directory fsync that starts after all of them.
  if (durable) QV_RETURN_IF_ERROR(dir_syncer_->Sync(parent));
  QV_SYNC_POINT(sp, store_points::kPutDone);
  return MetaOf(std::string(key), st);
}

// Streams appends into a temp file; Finish publishes it through PublishTemp, like Put.
class LocalObjectStore::Writer final : public ObjectWriter {
 public:
  Writer(LocalObjectStore* store, std::string key, PutOptions options, TempFile temp)
      : ObjectWriter(std::move(key)),
        store_(store),
        options_(std::move(options)),
        temp_(std::move(temp)) {}
  ~Writer() override { Abort(); }

 protected:
  Status AppendImpl(std::string_view bytes) override {
    return store_internal::WriteAll(temp_.fd.get(), bytes, temp_.path);
  }
  Result<ObjectMeta> FinishImpl() override {
    // PublishTemp disposes of the temp file whatever happens (published, removed, or, at a
    // sync point that simulates a crash, left for Sweep as a crash would leave it).
    Result<ObjectMeta> published = store_->PublishTemp(key(), temp_, options_);
    temp_.fd.reset();
    return published;
  }
  void AbortImpl() override {
    temp_.fd.reset();
    ::unlink(temp_.path.c_str());
  }

 private:
  LocalObjectStore* store_;
  PutOptions options_;
  TempFile temp_;
};

Result<std::unique_ptr<ObjectWriter>> LocalObjectStore::OpenWriter(std::string_view key,
                                                                   const PutOptions& options) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  QV_RETURN_IF_ERROR(ValidatePutOptions(options));
  TempFile temp;
  QV_RETURN_IF_ERROR(CreateTempFile(&temp));
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<Writer>(this, std::string(key), options, std::move(temp)));
}

Status LocalObjectStore::Delete(std::string_view key) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  QV_ASSIGN_OR_RETURN(KeyLock lock, LockKey(key));
  // The parent opened without following a link: a key whose path meets a link is not an object
  // of this store, so there is nothing to delete, and nothing is ever deleted through a link.
  UniqueFd dir = OpenBeneath(root_, KeyDir(key), O_PATH | O_DIRECTORY);
  if (!dir.valid()) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EXDEV) {
      return Status::OK();
    }
    return StatusFromErrno(errno, fmt::format("opening the directory of {}", path));
  }
  const std::string leaf(KeyLeaf(key));
  struct stat st;
  if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::OK();
    return StatusFromErrno(errno, fmt::format("stat {}", path));
  }
  if (!S_ISREG(st.st_mode)) return Status::OK();  // a directory or a link: not an object
  if (::unlinkat(dir.get(), leaf.c_str(), 0) != 0) {
    if (errno == ENOENT || errno == ENOTDIR || errno == EISDIR) return Status::OK();
    return StatusFromErrno(errno, fmt::format("deleting {}", path));
  }
  return dir_syncer_->Sync(ParentDir(path));
}

namespace {

// Depth-first walk that yields keys in byte-wise order: entries of a directory are sorted with
// directories as "name/", which is exactly how their keys compare.
class ListWalker {
 public:
  ListWalker(const std::string& root, const ListOptions& options,
             store_internal::DirListingCache* cache)
      : root_(root), options_(options), want_(options.limit + 1), cache_(cache) {}

  // Appends the keys of `rel_dir` (whose names start with `name_prefix`) that come after
  // start_after, in order, until the page is full. A directory can be far larger than a page, so
  // the first attempt keeps only the `need` smallest entries (a bounded heap: no sort, and no
  // string for entries that cannot make the page); only if some of those turn out to be empty
  // directories and the page is still short is the directory walked again in full.
  Status Walk(const std::string& rel_dir, std::string_view name_prefix) {
    if (cache_ != nullptr) return WalkCached(rel_dir, name_prefix);
    const size_t start_size = out_.size();
    bool short_of_entries = false;
    QV_RETURN_IF_ERROR(WalkOnce(rel_dir, name_prefix, want_ - start_size, &short_of_entries));
    if (short_of_entries && out_.size() < want_) {
      out_.resize(start_size);
      QV_RETURN_IF_ERROR(WalkOnce(rel_dir, name_prefix, SIZE_MAX, &short_of_entries));
    }
    return Status::OK();
  }

  struct Entry {
    std::string sort_name;  // "name" or "name/"
    bool is_dir;
    bool operator<(const Entry& other) const { return sort_name < other.sort_name; }
  };

  // Compares rel_dir + name (+ "/" for a directory) with start_after without building it.
  static int CompareJoined(std::string_view rel_dir, std::string_view name, bool dir,
                           std::string_view after) {
    std::string_view head = after.substr(0, std::min(after.size(), rel_dir.size()));
    if (int c = rel_dir.compare(0, head.size(), head); c != 0) return c;
    if (after.size() < rel_dir.size()) return 1;  // after is a proper prefix of rel_dir
    std::string_view rest = after.substr(rel_dir.size());
    std::string_view rest_head = rest.substr(0, std::min(rest.size(), name.size()));
    if (int c = name.compare(0, rest_head.size(), rest_head); c != 0) return c;
    if (rest.size() < name.size()) return 1;
    rest.remove_prefix(name.size());
    if (dir) {
      if (rest.empty()) return 1;
      if (rest.front() != '/') return '/' < static_cast<unsigned char>(rest.front()) ? -1 : 1;
      return rest.size() == 1 ? 0 : -1;  // full is a prefix of after
    }
    return rest.empty() ? 0 : -1;
  }

  // Opens directory `rel_dir` of the root for reading, never through a symbolic link: a
  // listing neither descends into a linked directory nor starts inside one. nullptr with `*gone`
  // set when there is no such directory, `*linked` when a link is in the way.
  static DIR* OpenDir(const std::string& root, const std::string& rel_dir, bool* gone,
                      bool* linked) {
    *gone = *linked = false;
    UniqueFd fd = OpenBeneath(root, rel_dir, O_RDONLY | O_DIRECTORY);
    if (!fd.valid()) {
      *linked = errno == ELOOP || errno == EXDEV;
      *gone = *linked || errno == ENOENT || errno == ENOTDIR;
      return nullptr;
    }
    DIR* dir = ::fdopendir(fd.get());
    if (dir != nullptr) fd.release();
    return dir;
  }

  // Every entry of a directory (files and subdirectories; never the reserved area, never a
  // link), unsorted. A directory behind a link is NotFound, so that the cache keeps nothing for
  // it (the link may be replaced by a directory, which a watch on the link's target never sees).
  static Result<std::vector<store_internal::DirEntry>> ReadAll(const std::string& root,
                                                               const std::string& rel_dir) {
    std::vector<store_internal::DirEntry> entries;
    const bool is_root = rel_dir.empty();
    std::string dir_path = is_root ? root : root + "/" + rel_dir;
    bool gone = false;
    bool linked = false;
    DIR* dir = OpenDir(root, rel_dir, &gone, &linked);
    if (dir == nullptr) {
      if (linked) return Status::NotFound(fmt::format("{} is behind a symbolic link", dir_path));
      if (gone) return entries;
      return StatusFromErrno(errno, fmt::format("listing {}", dir_path));
    }
    int dfd = ::dirfd(dir);
    errno = 0;
    while (dirent* e = ::readdir(dir)) {
      std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      if (is_root && name == kReservedSegment) continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
      }
      if (type == DT_DIR) entries.push_back({std::string(name) + "/", true});
      if (type == DT_REG) entries.push_back({std::string(name), false});
    }
    int read_errno = errno;
    ::closedir(dir);
    if (read_errno != 0) return StatusFromErrno(read_errno, "reading directory " + dir_path);
    return entries;
  }

  // With a sorted listing, a page starts by binary search at start_after and reads only what it
  // returns.
  Status WalkCached(const std::string& rel_dir, std::string_view name_prefix) {
    std::string dir_path = rel_dir.empty() ? root_ : root_ + "/" + rel_dir;
    // The directory, opened without following links: its files are stat'ed through it.
    bool gone = false;
    bool linked = false;
    DIR* opened = OpenDir(root_, rel_dir, &gone, &linked);
    if (opened == nullptr) {
      if (gone) return Status::OK();
      return StatusFromErrno(errno, fmt::format("listing {}", dir_path));
    }
    std::unique_ptr<DIR, int (*)(DIR*)> dir_closer(opened, ::closedir);
    const int dfd = ::dirfd(opened);
    auto listed = cache_->Get(dir_path, [&] { return ReadAll(root_, rel_dir); });
    if (!listed.ok() && listed.status().IsNotFound()) return Status::OK();  // a link appeared
    QV_RETURN_IF_ERROR(listed.status());
    store_internal::DirListing listing = *std::move(listed);
    const std::vector<store_internal::DirEntry>& entries = *listing;
    auto name_of = [](const store_internal::DirEntry& e) {
      std::string_view n = e.sort_name;
      if (e.is_dir) n.remove_suffix(1);
      return n;
    };
    auto begin = std::lower_bound(
        entries.begin(), entries.end(), name_prefix,
        [](const store_internal::DirEntry& e, std::string_view p) { return e.sort_name < p; });
    const std::string& after = options_.start_after;
    if (!after.empty()) {
      // Entries are sorted by their full key, so "at or before start_after" is a prefix of them.
      auto kept =
          std::partition_point(begin, entries.end(), [&](const store_internal::DirEntry& e) {
            int c = CompareJoined(rel_dir, name_of(e), e.is_dir, after);
            return !(c > 0 || (e.is_dir && c == 0));
          });
      // The directory just before may hold start_after itself: its later keys still count.
      if (kept != begin) {
        const store_internal::DirEntry& prev = *(kept - 1);
        size_t full = rel_dir.size() + prev.sort_name.size();
        if (prev.is_dir && after.size() > full &&
            CompareJoined(rel_dir, name_of(prev), true, after.substr(0, full)) == 0) {
          --kept;
        }
      }
      begin = kept;
    }
    for (auto it = begin; it != entries.end() && out_.size() < want_; ++it) {
      std::string_view name = name_of(*it);
      if (name.substr(0, name_prefix.size()) != name_prefix) break;
      std::string full = rel_dir + it->sort_name;
      if (it->is_dir) {
        QV_RETURN_IF_ERROR(Walk(full, ""));
        continue;
      }
      struct stat st;
      std::string leaf(name);
      if (::fstatat(dfd, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;  // deleted since it was listed
        return StatusFromErrno(errno, "stat " + dir_path + "/" + leaf);
      }
      if (!S_ISREG(st.st_mode)) continue;
      out_.push_back(MetaOf(std::move(full), st));
    }
    return Status::OK();
  }

  Status WalkOnce(const std::string& rel_dir, std::string_view name_prefix, size_t need,
                  bool* short_of_entries) {
    *short_of_entries = false;
    std::string dir_path = rel_dir.empty() ? root_ : root_ + "/" + rel_dir;
    bool gone = false;
    bool linked = false;
    DIR* dir = OpenDir(root_, rel_dir, &gone, &linked);
    if (dir == nullptr) {
      if (gone) return Status::OK();
      return StatusFromErrno(errno, fmt::format("listing {}", dir_path));
    }
    const std::string& after = options_.start_after;
    std::vector<Entry> heap;  // max-heap of the `need` smallest entries
    int dfd = ::dirfd(dir);
    errno = 0;
    while (dirent* e = ::readdir(dir)) {
      std::string_view name(e->d_name);
      if (name == "." || name == "..") continue;
      if (rel_dir.empty() && name == kReservedSegment) continue;
      if (name.substr(0, name_prefix.size()) != name_prefix) continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat st;
        if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
      }
      if (type != DT_DIR && type != DT_REG) continue;
      bool is_dir = type == DT_DIR;
      if (!after.empty()) {
        int c = CompareJoined(rel_dir, name, is_dir, after);
        // A file at or before start_after is out; a directory only if its whole subtree is
        // (it is before start_after and start_after is not inside it).
        if (!is_dir && c <= 0) continue;
        if (is_dir && c < 0 &&
            !(after.size() > rel_dir.size() + name.size() &&
              CompareJoined(rel_dir, name, true,
                            after.substr(0, rel_dir.size() + name.size() + 1)) == 0)) {
          continue;
        }
      }
      if (heap.size() >= need) {
        *short_of_entries = true;
        // Keep it only if it sorts before the largest kept entry.
        std::string_view largest = heap.front().sort_name;
        bool smaller = is_dir ? (std::string(name) + "/") < largest : name < largest;
        if (!smaller) continue;
        std::pop_heap(heap.begin(), heap.end());
        heap.pop_back();
      }
      heap.push_back({is_dir ? std::string(name) + "/" : std::string(name), is_dir});
      std::push_heap(heap.begin(), heap.end());
    }
    int read_errno = errno;
    std::sort_heap(heap.begin(), heap.end());
    Status status;
    if (read_errno != 0) status = StatusFromErrno(read_errno, "reading directory " + dir_path);
    for (Entry& entry : heap) {
      if (!status.ok() || out_.size() >= want_) break;
      std::string full = rel_dir + entry.sort_name;
      if (entry.is_dir) {
        status = Walk(full, "");
        continue;
      }
      struct stat st;
      if (::fstatat(dfd, entry.sort_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;  // deleted while we listed
        status = StatusFromErrno(errno, "stat " + dir_path + "/" + entry.sort_name);
        break;
      }
      // Replaced by a link (or anything but a file) since readdir: not an object.
      if (!S_ISREG(st.st_mode)) continue;
      out_.push_back(MetaOf(std::move(full), st));
    }
    ::closedir(dir);
    return status;
  }

  ListPage TakePage() {
    ListPage page;
    page.truncated = out_.size() > options_.limit;
    if (page.truncated) out_.resize(options_.limit);
    page.objects = std::move(out_);
    return page;
  }

 private:
  const std::string& root_;
  const ListOptions& options_;
  size_t want_;
  store_internal::DirListingCache* cache_;
  std::vector<ObjectMeta> out_;
};

}  // namespace

Result<ListPage> LocalObjectStore::List(const ListOptions& options) {
  QV_RETURN_IF_ERROR(ValidateListOptions(options));
  // "a/b/c" walks directory "a/b/" for names starting with "c"; "a/b/" walks "a/b/" whole.
  size_t slash = options.prefix.rfind('/');
  std::string rel_dir = slash == std::string::npos ? "" : options.prefix.substr(0, slash + 1);
  std::string name_prefix =
      slash == std::string::npos ? options.prefix : options.prefix.substr(slash + 1);
  ListWalker walker(root_, options, dir_cache_.get());
  QV_RETURN_IF_ERROR(walker.Walk(rel_dir, name_prefix));
  return walker.TakePage();
}

Status LocalObjectStore::Copy(std::string_view src, std::string_view dst) {
  QV_RETURN_IF_ERROR(ValidateKey(dst));
  auto got = Get(src);
  if (!got.ok()) {
    if (got.status().IsNotFound()) {
      return Status::NotFound(fmt::format("copy source '{}' not found", src));
    }
    return got.status();
  }
  return Put(dst, got->data, PutOptions::Overwrite()).status();
}

Result<SweepReport> LocalObjectStore::Sweep(Duration min_age) {
  SweepReport report;
  DIR* dir = ::opendir(tmp_dir_.c_str());
  if (dir == nullptr && errno == ENOENT) return report;  // nothing was ever written here
  if (dir == nullptr) return StatusFromErrno(errno, "listing " + tmp_dir_);
  int dfd = ::dirfd(dir);
  int64_t cutoff = options_.clock->NowNanos() - min_age.count();
  Status status;
  while (dirent* e = ::readdir(dir)) {
    std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
      continue;
    }
    // Age by ctime: the kernel sets it when the file is created (and on rename/link), and unlike
    // the mtime quiver stamps, nobody can set it to the future.
    int64_t changed = int64_t{st.st_ctim.tv_sec} * 1'000'000'000 + st.st_ctim.tv_nsec;
    if (changed > cutoff) continue;  // possibly a live writer's
    if (::unlinkat(dfd, e->d_name, 0) == 0) {
      ++report.files_removed;
      report.bytes_removed += static_cast<uint64_t>(st.st_size);
    } else if (errno != ENOENT) {
      status = StatusFromErrno(errno, fmt::format("removing temp file {}/{}", tmp_dir_, name));
      break;
    }
  }
  ::closedir(dir);
  if (!status.ok()) return status;
  return report;
}

Status CheckNoLinksBelow(const std::string& root, std::string_view rel) {
  std::string path = root;
  std::string walked;
  size_t start = 0;
  while (start < rel.size()) {
    size_t slash = rel.find('/', start);
    size_t end = slash == std::string_view::npos ? rel.size() : slash;
    std::string_view segment = rel.substr(start, end - start);
    start = end + 1;
    if (segment.empty()) continue;
    path += '/';
    path += segment;
    walked += walked.empty() ? "" : "/";
    walked += segment;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return Status::OK();
      return StatusFromErrno(errno, fmt::format("stat {}", path));
    }
    if (S_ISLNK(st.st_mode)) {
      return Status::InvalidInput(fmt::format(
          "'{}' is a symbolic link; quiver does not follow links below a storage root", walked));
    }
  }
  return Status::OK();
}

std::string LocalObjectStore::Describe() const { return "local:" + root_; }

std::string LocalObjectStore::ExternalPath(std::string_view key) const {
  return key.empty() ? root_ : root_ + "/" + std::string(key);
}

}  // namespace quiver
