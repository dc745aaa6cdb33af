// ReadOnlyStore: a decorator that forwards every read and refuses every write (Put, OpenWriter,
// Delete, Copy, Sweep) with InvalidInput, touching nothing. The read-only catalog
// (CatalogOptions::read_only, `quiver catalog check`) is opened over it, so "a check only
// reads" is enforced by construction, not by reviewing every path the check takes.
// Thread-safety: as the inner store.
#pragma once

#include <memory>
#include <string>

#include "store/object_store.h"

namespace quiver::catalog::internal {

class ReadOnlyStore final : public ObjectStore {
 public:
  explicit ReadOnlyStore(std::shared_ptr<ObjectStore> inner) : inner_(std::move(inner)) {}

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
  std::shared_ptr<ObjectStore> inner_;
};

}  // namespace quiver::catalog::internal
