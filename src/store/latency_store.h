// LatencyStore: adds a fixed delay per operation kind before forwarding, to model a remote
// object store (S3-like round trips) on a local one. The delay goes through the injected Clock,
// so tests use a ManualClock and never actually sleep. ReadAt waits the kReadAt delay; a writer's
// Finish waits the kPut delay (it is the put), its Appends none.
// Thread-safety: as the inner store; delays may be changed from any thread.
#pragma once

#include <array>
#include <atomic>
#include <memory>

#include "common/clock.h"
#include "store/object_store.h"
#include "store/store_wrapper.h"

namespace quiver {

class LatencyStore final : public StoreWrapper {
 public:
  // `clock` must outlive the store; Clock::Real() when null.
  LatencyStore(std::shared_ptr<ObjectStore> inner, Clock* clock = nullptr);

  void SetDelay(StoreOp op, Duration delay);
  void SetAllDelays(Duration delay);

 protected:
  Status BeforeRequest(StoreOp op, const PutOptions* put) override;

 private:
  Clock* clock_;
  std::array<std::atomic<int64_t>, kNumStoreOps> delay_nanos_{};
};

}  // namespace quiver
