// SyncPoints: named points inside a protocol (e.g. "local.put.before_publish") where a test can
// run code: block until released, record the arrival, kill the process, or return an error that
// the instrumented code treats as an abrupt stop (a simulated crash: no cleanup runs).
//
// A registry is an object, not a global, and is handed to the component that reaches the points
// (e.g. LocalStoreOptions::sync_points). Production code passes none; reaching a point then costs
// one null check. Tests coordinate threads with Gate instead of sleeping.
//
// Thread-safety: every method may be called from any thread. Callbacks run on the thread that
// reaches the point, outside the registry's lock (a callback may block).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/mutex.h"
#include "common/status.h"

namespace quiver {

class SyncPoints {
 public:
  // Returns OK to let the instrumented code go on; any other status makes it stop right there
  // and return that status without cleaning up.
  using Callback = std::function<Status(std::string_view point)>;

  void Set(std::string point, Callback callback);
  void Clear(const std::string& point);
  void ClearAll();

  // Called by instrumented code.
  Status Reach(std::string_view point);
  // How many times `point` was reached (whether or not a callback was set).
  uint64_t HitCount(std::string_view point) const;

 private:
  mutable Mutex mu_;
  std::map<std::string, std::shared_ptr<Callback>, std::less<>> callbacks_ GUARDED_BY(mu_);
  std::map<std::string, uint64_t, std::less<>> hits_ GUARDED_BY(mu_);
};

// A gate threads arrive at and wait behind until it is opened. Lets a test hold N threads at a
// sync point, observe that they are there, then release them.
class Gate {
 public:
  // Blocks until Open() (returns at once if already open). Counts the arrival first.
  void Arrive();
  // Blocks until at least `n` callers have arrived.
  void WaitForArrivals(int n);
  void Open();
  int arrivals() const;

  // A SyncPoints callback that arrives at this gate and then lets the code continue.
  SyncPoints::Callback AsCallback();

 private:
  mutable Mutex mu_;
  std::condition_variable cv_;
  int arrivals_ GUARDED_BY(mu_) = 0;
  bool open_ GUARDED_BY(mu_) = false;
};

}  // namespace quiver

// Reaches `point` on `sp` (a SyncPoints*, may be null) and returns its status if not OK.
#define QV_SYNC_POINT(sp, point)                                 \
  do {                                                           \
    if ((sp) != nullptr) QV_RETURN_IF_ERROR((sp)->Reach(point)); \
  } while (false)
