// DirListingCache: sorted directory listings of the local backend, kept valid by inotify.
//
// A POSIX directory cannot be read from a name onwards, so without a cache every page of a
// listing reads the whole directory. This cache keeps each listed directory's entries sorted and
// watches the directory with inotify; the kernel queues an event inside the very call that
// changes the directory (in any process on this machine), and every lookup first drains the
// queue, so a cached listing is never older than the last change that completed before the
// lookup began. Roots shared between machines (NFS) are not what the local backend is for.
// If inotify is unavailable or out of watches, lookups simply read the directory.
// Thread-safety: safe for concurrent use.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/mutex.h"
#include "common/result.h"

namespace quiver::store_internal {

struct DirEntry {
  std::string sort_name;  // "name" for a file, "name/" for a directory
  bool is_dir = false;
};
using DirListing = std::shared_ptr<const std::vector<DirEntry>>;  // sorted by sort_name

class DirListingCache {
 public:
  // nullptr when inotify is unavailable.
  static std::unique_ptr<DirListingCache> Create(size_t max_dirs = 256);
  ~DirListingCache();
  DirListingCache(const DirListingCache&) = delete;
  DirListingCache& operator=(const DirListingCache&) = delete;

  // The sorted entries of `dir_path`; `read` reads the directory (unsorted) when the cache
  // cannot answer. A missing directory is whatever `read` says (usually empty).
  Result<DirListing> Get(const std::string& dir_path,
                         const std::function<Result<std::vector<DirEntry>>()>& read);

 private:
  DirListingCache(int fd, size_t max_dirs) : fd_(fd), max_dirs_(max_dirs) {}
  // Applies every queued event.
  void Drain() REQUIRES(mu_);
  void Forget(const std::string& path) REQUIRES(mu_);

  struct Cached {
    uint64_t id = 0;  // unique per watch, so a re-added watch is never mistaken for the old one
    int wd = -1;
    DirListing listing;    // null: must be read
    uint64_t changes = 0;  // events seen for this directory
  };
  Mutex mu_;
  const int fd_;
  const size_t max_dirs_;
  std::unordered_map<std::string, Cached> by_path_ GUARDED_BY(mu_);
  std::unordered_map<int, std::string> path_of_wd_ GUARDED_BY(mu_);
  uint64_t next_id_ GUARDED_BY(mu_) = 1;
};

}  // namespace quiver::store_internal
