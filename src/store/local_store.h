// LocalObjectStore: the ObjectStore over a POSIX directory (the default backend).
//
// Layout: key "a/b/c" is the file <root>/a/b/c. The reserved directory <root>/.qv-store/ holds
// temp files (tmp/) and lock files (locks/); it is never listed and keys cannot enter it. It is
// created on the first write: opening and reading a root changes nothing on disk.
//
// Protocol of a Put (each step is a sync point, see object_store.h):
//   1. write the bytes to a fresh temp file in .qv-store/tmp/, stamp its mtime, fsync it;
//   2. publish it:
//        kCreateOnly  link(temp, final): atomic create-if-absent (what Lance itself does);
//                     EEXIST -> AlreadyExists. Needs no lock.
//        kOverwrite   under the key's lock: rename(temp, final).
//        kIfMatch     under the key's lock: compare the current etag, then rename(temp, final);
//                     a different or missing object -> Conflict.
//   3. fsync the parent directory. Only then does Put return.
// A crash at any step leaves the key holding the old bytes or the new bytes, never a mix;
// what it can leave behind is a temp file, invisible to List and removed by Sweep.
//
// A writer (OpenWriter) is the same protocol spread over time: OpenWriter creates the temp file,
// each Append writes straight to it (nothing is buffered, so memory stays bounded whatever the
// object's size), Finish runs steps 1 (stamp, fsync) to 3 exactly as Put does, reaching the same
// sync points, and Abort or destruction unlinks the temp file. A writer abandoned by a crash
// leaves its temp file for Sweep.
//
// ReadAt opens the file and preads straight into the caller's buffer.
//
// Key locks are flock(2) on one of 4096 lock files chosen by a hash of the key, so they exclude
// threads and processes alike (a fresh open file description per acquisition, which also keeps
// them correct across fork()). Delete takes the same lock.
//
// Etag = "<inode>-<mtime ns>-<size>" (hex). quiver stamps each new file's mtime itself with a
// nanosecond timestamp that is strictly greater than the previous stamp of this store and, under
// the key lock, than the replaced file's, so an etag does not repeat for a key even when the
// filesystem reuses inode numbers and its own timestamps are coarse.
// Last-modified = that stamp (nanosecond precision).
//
// Symbolic links below the root are never followed (the root's own path is resolved once, at
// Open): every open goes through openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) (or a walk with
// O_NOFOLLOW on older kernels), so a key whose path meets a link is not an object (Get, Head,
// ReadAt: NotFound), a listing neither reports a link nor descends into one, a put through a
// link is InvalidInput, and a delete never removes anything a link points at.
//
// Limitation of a directory tree: a key cannot be both an object and a prefix of other keys
// ("a" and "a/b"); such a Put is InvalidInput.
// Thread-safety: safe for concurrent use by threads and by processes sharing the root.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/sync_point.h"
#include "store/object_store.h"

namespace quiver {
namespace store_internal {
class DirListingCache;
class DirSyncer;
}  // namespace store_internal

struct LocalStoreOptions {
  bool create_if_missing = true;      // create the root directory if it does not exist
  const Clock* clock = nullptr;       // stamps mtimes; Clock::Real() when null
  SyncPoints* sync_points = nullptr;  // store_points::* during Put
  // Keep listed directories sorted in memory, kept valid by inotify (changes by any process on
  // this machine are seen; a root shared across machines must turn this off).
  bool cache_listings = true;
};

class LocalObjectStore final : public ObjectStore {
 public:
  ~LocalObjectStore() override;
  // Opens (creating if allowed) the store rooted at directory `root` (absolute or relative to the
  // working directory). InvalidInput if `root` exists and is not a directory.
  static Result<std::shared_ptr<LocalObjectStore>> Open(const std::string& root,
                                                        LocalStoreOptions options = {});

  Result<GetResult> Get(std::string_view key, std::optional<ByteRange> range = {}) override;
  Status ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  Result<ObjectMeta> Put(std::string_view key, std::string_view data,
                         const PutOptions& options = {}) override;
  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view key,
                                                   const PutOptions& options = {}) override;
  Status Delete(std::string_view key) override;
  Result<ListPage> List(const ListOptions& options) override;
  Status Copy(std::string_view src, std::string_view dst) override;
  // Removes temp files in .qv-store/tmp/ last changed more than `min_age` ago (by ctime). A
  // Put's temp file is at most seconds old, and a writer's is changed by each Append, so any
  // min_age of minutes is safe while puts and steadily appending writers run (a writer that sits
  // idle for longer than min_age may lose its temp file: its Finish then fails and publishes
  // nothing); min_age 0 is safe only when no writer is active.
  Result<SweepReport> Sweep(Duration min_age) override;
  std::string Describe() const override;
  std::string ExternalPath(std::string_view key) const override;

  const std::string& root() const { return root_; }

 private:
  LocalObjectStore(std::string root, LocalStoreOptions options);

  std::string PathOf(std::string_view key) const;
  // A put's temp file in .qv-store/tmp/ (defined in the .cc: it holds a file descriptor).
  struct TempFile;
  class Writer;
  Status CreateTempFile(TempFile* temp);
  // Steps 1 (after the bytes are written) to 3 of the put protocol for `temp`: shared by Put
  // and a writer's Finish. An ordinary failure removes the temp file; a sync point that stops
  // the put leaves it, as a crash would.
  Result<ObjectMeta> PublishTemp(std::string_view key, TempFile& temp, const PutOptions& options);
  class KeyLock;
  Result<KeyLock> LockKey(std::string_view key);
  int64_t NextStamp(int64_t at_least);

  std::string root_;                    // absolute, no trailing '/'
  std::atomic<int64_t> last_stamp_{0};  // stamps of this store strictly increase
  std::string tmp_dir_;
  std::string lock_dir_;
  LocalStoreOptions options_;
  std::unique_ptr<store_internal::DirListingCache> dir_cache_;  // null: read directories
  std::unique_ptr<store_internal::DirSyncer> dir_syncer_;       // shares concurrent dir fsyncs
};

// InvalidInput naming the first component of the relative path `rel` below the directory `root`
// that is a symbolic link; OK when none is (components that do not exist follow nothing). For
// callers that accept a location from a client (RegisterTable) and must refuse one that leads,
// through a link, into another table or out of the root.
Status CheckNoLinksBelow(const std::string& root, std::string_view rel);

}  // namespace quiver
