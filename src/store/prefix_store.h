// PrefixStore: a view of the sub-tree `prefix/` of another store, with keys relative to it.
//
// Keys given to it are validated, then prefixed; keys it returns (List, metadata) have the
// prefix removed. Sweep forwards to the inner store (leftovers live at the inner root). ReadAt and
// OpenWriter forward with the key prefixed; a writer's Finish returns the key without it.
// Thread-safety: as the inner store.
#pragma once

#include <memory>
#include <string>

#include "store/object_store.h"
#include "store/store_wrapper.h"

namespace quiver {

class PrefixStore final : public StoreWrapper {
 public:
  // `prefix` is a valid key (no trailing '/'); InvalidInput otherwise.
  static Result<std::shared_ptr<PrefixStore>> Make(std::shared_ptr<ObjectStore> inner,
                                                   std::string_view prefix);

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
  std::string ExternalPath(std::string_view key) const override;

 private:
  PrefixStore(std::shared_ptr<ObjectStore> inner, std::string prefix)
      : StoreWrapper(std::move(inner), "prefix(" + prefix + ")"), prefix_(std::move(prefix)) {}
  class Writer;
  Result<std::string> Inner(std::string_view key) const;
  void Strip(ObjectMeta& meta) const;

  std::string prefix_;  // ends with '/'
};

}  // namespace quiver
