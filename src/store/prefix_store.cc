#include "store/prefix_store.h"

#include "store/key.h"

namespace quiver {

Result<std::shared_ptr<PrefixStore>> PrefixStore::Make(std::shared_ptr<ObjectStore> inner,
                                                       std::string_view prefix) {
  if (!inner) return Status::InvalidInput("prefix store needs an inner store");
  Status s = ValidateKey(prefix);
  if (!s.ok()) return s.WithContext("store prefix");
  return std::shared_ptr<PrefixStore>(new PrefixStore(std::move(inner), std::string(prefix) + "/"));
}

Result<std::string> PrefixStore::Inner(std::string_view key) const {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  return prefix_ + std::string(key);
}

void PrefixStore::Strip(ObjectMeta& meta) const {
  if (meta.key.compare(0, prefix_.size(), prefix_) == 0) meta.key.erase(0, prefix_.size());
}

Result<GetResult> PrefixStore::Get(std::string_view key, std::optional<ByteRange> range) {
  QV_ASSIGN_OR_RETURN(std::string inner_key, Inner(key));
  QV_ASSIGN_OR_RETURN(GetResult result, target()->Get(inner_key, range));
  Strip(result.meta);
  return result;
}

Status PrefixStore::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  QV_ASSIGN_OR_RETURN(std::string inner_key, Inner(key));
  return target()->ReadAt(inner_key, offset, dst);
}

Result<ObjectMeta> PrefixStore::Head(std::string_view key) {
  QV_ASSIGN_OR_RETURN(std::string inner_key, Inner(key));
  QV_ASSIGN_OR_RETURN(ObjectMeta meta, target()->Head(inner_key));
  Strip(meta);
  return meta;
}

Result<ObjectMeta> PrefixStore::Put(std::string_view key, std::string_view data,
                                    const PutOptions& options) {
  QV_ASSIGN_OR_RETURN(std::string inner_key, Inner(key));
  QV_ASSIGN_OR_RETURN(ObjectMeta meta, target()->Put(inner_key, data, options));
  Strip(meta);
  return meta;
}

// Hands back metadata with the caller's key, as Put does.
class PrefixStore::Writer final : public ForwardingWriter {
 public:
  Writer(const PrefixStore* store, std::string key, std::unique_ptr<ObjectWriter> inner)
      : ForwardingWriter(std::move(key), std::move(inner)), store_(store) {}

 protected:
  Result<ObjectMeta> FinishImpl() override {
    QV_ASSIGN_OR_RETURN(ObjectMeta meta, ForwardingWriter::FinishImpl());
    store_->Strip(meta);
    return meta;
  }

 private:
  const PrefixStore* store_;
};

Result<std::unique_ptr<ObjectWriter>> PrefixStore::OpenWriter(std::string_view key,
                                                              const PutOptions& options) {
  QV_ASSIGN_OR_RETURN(std::string inner_key, Inner(key));
  QV_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> inner,
                      target()->OpenWriter(inner_key, options));
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<Writer>(this, std::string(key), std::move(inner)));
}

Status PrefixStore::Delete(std::string_view key) {
  QV_ASSIGN_OR_RETURN(std::string inner_key, Inner(key));
  return target()->Delete(inner_key);
}

Result<ListPage> PrefixStore::List(const ListOptions& options) {
  QV_RETURN_IF_ERROR(ValidateListOptions(options));
  ListOptions inner = options;
  inner.prefix = prefix_ + options.prefix;
  // Keys below the prefix all start with prefix_; a start_after that sorts before them all means
  // "from the start".
  inner.start_after = options.start_after.empty() ? "" : prefix_ + options.start_after;
  QV_ASSIGN_OR_RETURN(ListPage page, target()->List(inner));
  for (ObjectMeta& meta : page.objects) Strip(meta);
  return page;
}

Status PrefixStore::Copy(std::string_view src, std::string_view dst) {
  QV_ASSIGN_OR_RETURN(std::string inner_src, Inner(src));
  QV_ASSIGN_OR_RETURN(std::string inner_dst, Inner(dst));
  return target()->Copy(inner_src, inner_dst);
}

std::string PrefixStore::ExternalPath(std::string_view key) const {
  // prefix_ ends with '/'; the root itself is named without it.
  std::string inner_key =
      key.empty() ? prefix_.substr(0, prefix_.size() - 1) : prefix_ + std::string(key);
  return target()->ExternalPath(inner_key);
}

}  // namespace quiver
