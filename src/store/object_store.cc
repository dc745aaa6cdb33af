#include "store/object_store.h"

#include <fmt/format.h>

#include "store/key.h"

namespace quiver {

std::string_view StoreOpName(StoreOp op) {
  switch (op) {
    case StoreOp::kGet:
      return "get";
    case StoreOp::kHead:
      return "head";
    case StoreOp::kPut:
      return "put";
    case StoreOp::kDelete:
      return "delete";
    case StoreOp::kList:
      return "list";
    case StoreOp::kCopy:
      return "copy";
    case StoreOp::kSweep:
      return "sweep";
  }
  return "unknown";
}

std::string_view PutModeName(PutMode mode) {
  switch (mode) {
    case PutMode::kOverwrite:
      return "overwrite";
    case PutMode::kCreateOnly:
      return "create_only";
    case PutMode::kIfMatch:
      return "if_match";
  }
  return "unknown";
}

Status ValidatePutOptions(const PutOptions& options) {
  if (options.mode == PutMode::kIfMatch && options.if_match.empty()) {
    return Status::InvalidInput("an if-match put needs the expected etag");
  }
  return Status::OK();
}

Status ValidateListOptions(const ListOptions& options) {
  QV_RETURN_IF_ERROR(ValidateListPrefix(options.prefix));
  QV_RETURN_IF_ERROR(ValidateStartAfter(options.start_after));
  if (options.limit == 0 || options.limit > kMaxListLimit) {
    return Status::InvalidInput(
        fmt::format("list limit {} is outside 1..{}", options.limit, kMaxListLimit));
  }
  return Status::OK();
}

Result<std::pair<uint64_t, uint64_t>> ResolveRange(std::optional<ByteRange> range, uint64_t size) {
  if (!range) return std::make_pair(uint64_t{0}, size);
  if (range->offset > size) {
    return Status::InvalidInput(
        fmt::format("range offset {} is past the end of a {}-byte object", range->offset, size));
  }
  uint64_t available = size - range->offset;
  uint64_t length = range->length ? std::min(*range->length, available) : available;
  return std::make_pair(range->offset, range->offset + length);
}

Result<std::vector<ObjectMeta>> ObjectStore::ListAll(std::string_view prefix, size_t page_size) {
  std::vector<ObjectMeta> all;
  ListOptions options;
  options.prefix = std::string(prefix);
  options.limit = page_size;
  while (true) {
    QV_ASSIGN_OR_RETURN(ListPage page, List(options));
    for (ObjectMeta& m : page.objects) all.push_back(std::move(m));
    if (!page.truncated || all.empty()) break;
    options.start_after = all.back().key;
  }
  return all;
}

}  // namespace quiver
