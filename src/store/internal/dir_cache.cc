#include "store/internal/dir_cache.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace quiver::store_internal {

namespace {
// IN_DONT_FOLLOW: a directory behind a link is never listed (local_store.h), and a watch on the
// link's target would miss the link being replaced by a real directory.
constexpr uint32_t kWatchMask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW;
}  // namespace

std::unique_ptr<DirListingCache> DirListingCache::Create(size_t max_dirs) {
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return nullptr;
  return std::unique_ptr<DirListingCache>(new DirListingCache(fd, max_dirs));
}

DirListingCache::~DirListingCache() { ::close(fd_); }

void DirListingCache::Forget(const std::string& path) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  ::inotify_rm_watch(fd_, it->second.wd);
  path_of_wd_.erase(it->second.wd);
  by_path_.erase(it);
}

void DirListingCache::Drain() {
  alignas(struct inotify_event) char buf[16384];
  while (true) {
    ssize_t n = ::read(fd_, buf, sizeof(buf));
    if (n <= 0) return;  // EAGAIN: the queue is empty
    for (char* p = buf; p < buf + n;) {
      auto* event = reinterpret_cast<struct inotify_event*>(p);
      p += sizeof(struct inotify_event) + event->len;
      if (event->mask & IN_Q_OVERFLOW) {
        // Events were lost: nothing cached can be trusted.
        for (auto& [path, cached] : by_path_) {
          cached.listing = nullptr;
          ++cached.changes;
        }
        continue;
      }
      auto wd = path_of_wd_.find(event->wd);
      if (wd == path_of_wd_.end()) continue;
      auto cached = by_path_.find(wd->second);
      if (cached == by_path_.end()) continue;
      if (event->mask & IN_IGNORED) {  // the watch is gone (directory removed)
        path_of_wd_.erase(wd);
        by_path_.erase(cached);
        continue;
      }
      cached->second.listing = nullptr;
      ++cached->second.changes;
    }
  }
}

Result<DirListing> DirListingCache::Get(
    const std::string& dir_path, const std::function<Result<std::vector<DirEntry>>()>& read) {
  auto sorted = [](std::vector<DirEntry> entries) {
    std::sort(entries.begin(), entries.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.sort_name < b.sort_name; });
    return std::make_shared<const std::vector<DirEntry>>(std::move(entries));
  };
  uint64_t before = 0;
  uint64_t id = 0;
  bool watched = false;
  {
    MutexLock lock(&mu_);
    Drain();
    auto it = by_path_.find(dir_path);
    if (it != by_path_.end() && it->second.listing) return it->second.listing;
    if (it == by_path_.end()) {
      if (by_path_.size() >= max_dirs_) Forget(by_path_.begin()->first);
      // Watch before reading, so that a change during the read is seen.
      int wd = ::inotify_add_watch(fd_, dir_path.c_str(), kWatchMask);
      if (wd >= 0) {
        // The same directory under another name shares the watch: keep one entry per watch.
        auto other = path_of_wd_.find(wd);
        if (other != path_of_wd_.end() && other->second != dir_path) by_path_.erase(other->second);
        path_of_wd_[wd] = dir_path;
        it = by_path_.emplace(dir_path, Cached{next_id_++, wd, nullptr, 0}).first;
      }
    }
    if (it != by_path_.end()) {
      watched = true;
      before = it->second.changes;
      id = it->second.id;
    }
  }
  QV_ASSIGN_OR_RETURN(std::vector<DirEntry> entries, read());
  DirListing listing = sorted(std::move(entries));
  if (watched) {
    MutexLock lock(&mu_);
    Drain();
    auto it = by_path_.find(dir_path);
    // Cache only what no change raced with.
    if (it != by_path_.end() && it->second.id == id && it->second.changes == before) {
      it->second.listing = listing;
    }
  }
  return listing;
}

}  // namespace quiver::store_internal
