// MemoryObjectStore: an in-process ObjectStore for tests and for `memory://name` roots.
//
// Stores opened with the same name in one process share their contents (so a server and a test
// can both open `memory://t1`). Etags are unique per process ("m-<generation>"); last-modified
// comes from the injected clock (nanosecond precision). Nothing survives the process.
// ReadAt copies straight from the stored bytes; writers are ObjectStore's default (buffer, then
// one Put on Finish), which is exactly what an in-memory object needs anyway.
// Thread-safety: safe for concurrent use; each operation is atomic (one lock per named store).
#pragma once

#include <memory>
#include <string>

#include "common/clock.h"
#include "common/sync_point.h"
#include "store/object_store.h"

namespace quiver {

struct MemoryStoreOptions {
  const Clock* clock = nullptr;       // Clock::Real() when null
  SyncPoints* sync_points = nullptr;  // reached during Put (store_points::kPutBeforePublish...)
};

class MemoryObjectStore final : public ObjectStore {
 public:
  // A fresh, unnamed store.
  static std::shared_ptr<MemoryObjectStore> Create(MemoryStoreOptions options = {});
  // The process-wide store called `name` (created empty on first use).
  static std::shared_ptr<MemoryObjectStore> Named(const std::string& name,
                                                  MemoryStoreOptions options = {});

  Result<GetResult> Get(std::string_view key, std::optional<ByteRange> range = {}) override;
  Status ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  Result<ObjectMeta> Put(std::string_view key, std::string_view data,
                         const PutOptions& options = {}) override;
  Status Delete(std::string_view key) override;
  Result<ListPage> List(const ListOptions& options) override;
  Status Copy(std::string_view src, std::string_view dst) override;
  Result<SweepReport> Sweep(Duration min_age) override;
  std::string Describe() const override;
  std::string ExternalPath(std::string_view key) const override;

  struct Shared;  // the contents, shared by stores of the same name

 private:
  MemoryObjectStore(std::shared_ptr<Shared> shared, std::string name, MemoryStoreOptions options);

  std::shared_ptr<Shared> shared_;
  std::string name_;
  MemoryStoreOptions options_;
};

}  // namespace quiver
