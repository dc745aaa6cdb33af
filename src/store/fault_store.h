// FaultInjectingStore: a decorator that makes chosen calls fail, wait, or "crash" so that the
// layers above can be tested against every storage failure without real broken disks.
//
//   FailNth(kPut, 3, Status::IOError("disk full"))   the 3rd put from now fails, untouched inner
//   FailAlways(kGet, ...)                            every get fails until Clear()
//   PauseNth(kPut, 1, &gate)                         the next put waits at `gate` until opened
//   CrashNthPutBeforePublish(2)                      the 2nd put writes its bytes, then stops
//                                                    before publishing them (as if the process
//                                                    died after write, before rename/link)
//   FailNthAppend(3, Status::IOError("ENOSPC"))      the 3rd writer Append from now fails
//
// A writer's Finish is a put: kPut rules (fail, pause, crash) apply to it as to Put. A failed
// Finish aborts the inner writer, so nothing is published and its temp data is removed. Appends
// are not a StoreOp (they are not requests, see object_store.h), hence their own rule; a failed
// Append closes the writer like any failed Append (its data is discarded). ReadAt is kReadAt.
//
// Calls are counted per operation kind from the moment a rule is armed. A fired Nth rule is
// spent; an Always rule stays until Clear(). The crash rule needs the SyncPoints registry of the
// inner backend (the point store_points::kPutBeforePublish); the store it leaves behind is what a
// crash leaves: the old object intact, a temp file that Sweep removes.
// Thread-safety: as the inner store; rules may be armed from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/mutex.h"
#include "common/sync_point.h"
#include "store/object_store.h"
#include "store/store_wrapper.h"

namespace quiver {

class FaultInjectingStore final : public StoreWrapper {
 public:
  explicit FaultInjectingStore(std::shared_ptr<ObjectStore> inner,
                               SyncPoints* inner_points = nullptr);
  ~FaultInjectingStore() override;

  void FailNth(StoreOp op, uint64_t n, Status status);
  void FailAlways(StoreOp op, Status status);
  void PauseNth(StoreOp op, uint64_t n, Gate* gate);
  // InvalidInput when the store was made without the inner backend's SyncPoints.
  Status CrashNthPutBeforePublish(uint64_t n);
  void FailNthAppend(uint64_t n, Status status);
  void Clear();
  // How many faults have fired so far.
  uint64_t fired() const;

 protected:
  Status BeforeRequest(StoreOp op, const PutOptions* put) override;
  void AfterRequest(StoreOp op, const PutOptions* put, const Status& status) override;
  Status BeforeAppend() override;

 private:
  enum class Kind { kFail, kPause, kCrash };
  // What a rule counts: a StoreOp's value, or kAppendTarget for writer appends.
  static constexpr int kAppendTarget = kNumStoreOps;
  struct Rule {
    int target;
    uint64_t n;  // 0 = always
    Kind kind;
    Status status;
    Gate* gate = nullptr;
    uint64_t seen = 0;
    bool spent = false;
  };
  struct Action {
    Kind kind = Kind::kFail;
    Status status;
    Gate* gate = nullptr;
    bool fire = false;
  };

  void Arm(Rule rule);
  // Decides what happens to this call: fail now (returns the status), wait at a gate (done here),
  // or crash (sets *crash). OK = forward normally.
  Status BeforeTarget(int target, bool* crash);

  SyncPoints* inner_points_;
  mutable Mutex mu_;
  std::vector<Rule> rules_ GUARDED_BY(mu_);
  uint64_t fired_ GUARDED_BY(mu_) = 0;
};

}  // namespace quiver
