// ReadOnlyStore: a decorator that forwards every read and refuses every write (Put, OpenWriter,
// Delete, Copy, Sweep) with InvalidInput, touching nothing. The read-only catalog
// (CatalogOptions::read_only, `quiver catalog check`) is opened over it, so "a check only
// reads" is enforced by construction, not by reviewing every path the check takes.
// Thread-safety: as the inner store.
#pragma once

#include <memory>
#include <string>

#include "store/object_store.h"
#include "store/store_wrapper.h"

namespace quiver::catalog::internal {

class ReadOnlyStore final : public StoreWrapper {
 public:
  explicit ReadOnlyStore(std::shared_ptr<ObjectStore> inner)
      : StoreWrapper(std::move(inner), "read-only") {}

  // Reads are forwarded by StoreWrapper; these refuse (a writer is refused at open, before a
  // backend could create its temp file).
  Result<ObjectMeta> Put(std::string_view key, std::string_view data,
                         const PutOptions& options = {}) override;
  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view key,
                                                   const PutOptions& options = {}) override;
  Status Delete(std::string_view key) override;
  Status Copy(std::string_view src, std::string_view dst) override;
  Result<SweepReport> Sweep(Duration min_age) override;
};

}  // namespace quiver::catalog::internal
