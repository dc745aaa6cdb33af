#include "catalog/internal/read_only_store.h"

#include <fmt/format.h>

namespace quiver::catalog::internal {

namespace {
Status Refused(std::string_view what, std::string_view key) {
  return Status::InvalidInput(
      fmt::format("the store is open read-only: refused to {} '{}'", what, key));
}
}  // namespace

Result<GetResult> ReadOnlyStore::Get(std::string_view key, std::optional<ByteRange> range) {
  return inner_->Get(key, range);
}

Status ReadOnlyStore::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  return inner_->ReadAt(key, offset, dst);
}

Result<ObjectMeta> ReadOnlyStore::Head(std::string_view key) { return inner_->Head(key); }

Result<ObjectMeta> ReadOnlyStore::Put(std::string_view key, std::string_view, const PutOptions&) {
  return Refused("write", key);
}

Result<std::unique_ptr<ObjectWriter>> ReadOnlyStore::OpenWriter(std::string_view key,
                                                                const PutOptions&) {
  return Refused("write", key);
}

Status ReadOnlyStore::Delete(std::string_view key) { return Refused("delete", key); }

Result<ListPage> ReadOnlyStore::List(const ListOptions& options) { return inner_->List(options); }

Status ReadOnlyStore::Copy(std::string_view, std::string_view dst) {
  return Refused("copy to", dst);
}

Result<SweepReport> ReadOnlyStore::Sweep(Duration) { return Refused("sweep", ""); }

std::string ReadOnlyStore::Describe() const { return inner_->Describe() + " (read-only)"; }

std::string ReadOnlyStore::ExternalPath(std::string_view key) const {
  return inner_->ExternalPath(key);
}

}  // namespace quiver::catalog::internal
