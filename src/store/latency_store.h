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

namespace quiver {

class LatencyStore final : public ObjectStore {
 public:
  // `clock` must outlive the store; Clock::Real() when null.
  LatencyStore(std::shared_ptr<ObjectStore> inner, Clock* clock = nullptr);

  void SetDelay(StoreOp op, Duration delay);
  void SetAllDelays(Duration delay);

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
  Result<SweepReport> Sweep(Duration min_age) override;
  std::string Describe() const override;
  std::string ExternalPath(std::string_view key) const override;

 private:
  class Writer;
  void Delay(StoreOp op);

  std::shared_ptr<ObjectStore> inner_;
  Clock* clock_;
  std::array<std::atomic<int64_t>, kNumStoreOps> delay_nanos_{};
};

}  // namespace quiver
