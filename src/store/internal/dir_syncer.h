// DirSyncer: group commit for directory fsyncs. A writer that has just linked, renamed or
// unlinked an entry needs the directory fsynced *after* its change; concurrent writers of one
// directory can share one fsync that starts after all of their changes. Sync(dir) takes a ticket
// (its change is done by then) and returns once a fsync that began after the ticket finished:
// it either runs that fsync itself or waits for the one running for others.
// Thread-safety: safe for concurrent use.
#pragma once

#include <condition_variable>
#include <string>
#include <unordered_map>

#include "common/mutex.h"
#include "common/status.h"

namespace quiver::store_internal {

class DirSyncer {
 public:
  Status Sync(const std::string& dir);

 private:
  struct State {
    uint64_t requested = 0;  // tickets handed out
    uint64_t completed = 0;  // every ticket up to this one is covered by a finished fsync
    bool running = false;
    Status last;  // the outcome of the newest finished fsync
    int users = 0;
  };
  Mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<std::string, State> dirs_ GUARDED_BY(mu_);  // entries live while used
};

}  // namespace quiver::store_internal
