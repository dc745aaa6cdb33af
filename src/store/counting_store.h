// CountingStore: counts every request that passes through it, per operation kind (puts also
// per mode), and how many of them failed. The counts are what "object-store requests per
// operation" figures and metrics are made from.
//
// ReadAt counts as kReadAt; the bytes successful Gets and ReadAts return are summed. A writer
// counts as one kPut (by its mode) when Finish is called, a failed Finish as a failed put, and an
// OpenWriter that fails as a failed put (as a Put with the same bad key or I/O failure would).
// Appends are not counted: they are not requests of their own but stream into the one object Finish
// publishes. Writers aborted or destroyed unfinished publish nothing and count nothing.
// Thread-safety: as the inner store; counters are atomic and Snapshot() may be taken any time.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <string>

#include "store/object_store.h"
#include "store/store_wrapper.h"

namespace quiver {

struct StoreCounts {
  std::array<uint64_t, kNumStoreOps> calls{};   // indexed by StoreOp
  std::array<uint64_t, kNumStoreOps> errors{};  // calls that returned non-OK
  std::array<uint64_t, 3> puts_by_mode{};       // indexed by PutMode
  uint64_t bytes_read = 0;                      // returned by successful Get and ReadAt calls

  uint64_t Calls(StoreOp op) const { return calls[static_cast<int>(op)]; }
  uint64_t Errors(StoreOp op) const { return errors[static_cast<int>(op)]; }
  uint64_t Puts(PutMode mode) const { return puts_by_mode[static_cast<int>(mode)]; }
  uint64_t TotalCalls() const;
  // The difference `*this - before` (for "requests made by this operation").
  StoreCounts Since(const StoreCounts& before) const;
  // "get=3 head=0 put=2(overwrite=1 create_only=1 if_match=0) ..."
  std::string ToString() const;
};

class CountingStore final : public StoreWrapper {
 public:
  explicit CountingStore(std::shared_ptr<ObjectStore> inner)
      : StoreWrapper(std::move(inner), "counting") {}

  StoreCounts Snapshot() const;
  void Reset();

  Result<GetResult> Get(std::string_view key, std::optional<ByteRange> range = {}) override;
  Status ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) override;

 protected:
  void AfterRequest(StoreOp op, const PutOptions* put, const Status& status) override;

 private:
  std::array<std::atomic<uint64_t>, kNumStoreOps> calls_{};
  std::array<std::atomic<uint64_t>, kNumStoreOps> errors_{};
  std::array<std::atomic<uint64_t>, 3> puts_by_mode_{};
  std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace quiver
