#include "catalog/internal/read_only_store.h"

#include <fmt/format.h>

namespace quiver::catalog::internal {

namespace {
Status Refused(std::string_view what, std::string_view key) {
  return Status::InvalidInput(
      fmt::format("the store is open read-only: refused to {} '{}'", what, key));
}
}  // namespace

Result<ObjectMeta> ReadOnlyStore::Put(std::string_view key, std::string_view, const PutOptions&) {
  return Refused("write", key);
}

Result<std::unique_ptr<ObjectWriter>> ReadOnlyStore::OpenWriter(std::string_view key,
                                                                const PutOptions&) {
  return Refused("write", key);
}

Status ReadOnlyStore::Delete(std::string_view key) { return Refused("delete", key); }

Status ReadOnlyStore::Copy(std::string_view, std::string_view dst) {
  return Refused("copy to", dst);
}

Result<SweepReport> ReadOnlyStore::Sweep(Duration) { return Refused("sweep", ""); }

}  // namespace quiver::catalog::internal
