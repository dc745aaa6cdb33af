#include "store/internal/dir_syncer.h"

#include "store/internal/posix_io.h"

namespace quiver::store_internal {

Status DirSyncer::Sync(const std::string& dir) {
  MutexLock lock(&mu_);
  State& state = dirs_[dir];
  ++state.users;
  const uint64_t ticket = ++state.requested;
  Status result;
  while (true) {
    if (state.completed >= ticket) {
      result = state.last;
      break;
    }
    if (!state.running) {
      // Lead: this fsync starts after every ticket handed out so far, so it covers them all.
      state.running = true;
      const uint64_t covering = state.requested;
      lock.Unlock();
      Status synced = FsyncDir(dir);
      lock.Lock();
      state.running = false;
      state.last = synced;
      if (covering > state.completed) state.completed = covering;
      cv_.notify_all();
      continue;
    }
    mu_.Await(cv_);
  }
  if (--state.users == 0) dirs_.erase(dir);
  return result;
}

}  // namespace quiver::store_internal
