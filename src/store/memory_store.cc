#include "store/memory_store.h"

#include <atomic>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "common/mutex.h"
#include "store/key.h"

namespace quiver {

struct MemoryObjectStore::Shared {
  struct Object {
    std::string data;
    ObjectMeta meta;
  };
  SharedMutex mu;
  std::map<std::string, Object, std::less<>> objects GUARDED_BY(mu);
};

namespace {

std::atomic<uint64_t> g_generation{0};

std::string NextEtag() { return fmt::format("m-{:x}", ++g_generation); }

}  // namespace

MemoryObjectStore::MemoryObjectStore(std::shared_ptr<Shared> shared, std::string name,
                                     MemoryStoreOptions options)
    : shared_(std::move(shared)), name_(std::move(name)), options_(options) {
  if (options_.clock == nullptr) options_.clock = Clock::Real();
}

std::shared_ptr<MemoryObjectStore> MemoryObjectStore::Create(MemoryStoreOptions options) {
  return std::shared_ptr<MemoryObjectStore>(
      new MemoryObjectStore(std::make_shared<Shared>(), "", options));
}

std::shared_ptr<MemoryObjectStore> MemoryObjectStore::Named(const std::string& name,
                                                            MemoryStoreOptions options) {
  struct Registry {
    Mutex mu;
    std::map<std::string, std::shared_ptr<Shared>> by_name GUARDED_BY(mu);
  };
  static auto* registry = new Registry();  // leaked: named stores may outlive static destruction
  std::shared_ptr<Shared> shared;
  {
    MutexLock lock(&registry->mu);
    auto& slot = registry->by_name[name];
    if (!slot) slot = std::make_shared<Shared>();
    shared = slot;
  }
  return std::shared_ptr<MemoryObjectStore>(new MemoryObjectStore(shared, name, options));
}

Result<GetResult> MemoryObjectStore::Get(std::string_view key, std::optional<ByteRange> range) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  ReaderLock lock(&shared_->mu);
  auto it = shared_->objects.find(key);
  if (it == shared_->objects.end()) {
    return Status::NotFound(fmt::format("object '{}' not found", key));
  }
  QV_ASSIGN_OR_RETURN(auto span, ResolveRange(range, it->second.data.size()));
  return GetResult{it->second.data.substr(span.first, span.second - span.first), it->second.meta};
}

Status MemoryObjectStore::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  ReaderLock lock(&shared_->mu);
  auto it = shared_->objects.find(key);
  if (it == shared_->objects.end()) {
    return Status::NotFound(fmt::format("object '{}' not found", key));
  }
  const std::string& data = it->second.data;
  QV_RETURN_IF_ERROR(CheckReadAtRange(key, offset, dst.size(), data.size()));
  if (!dst.empty()) std::memcpy(dst.data(), data.data() + offset, dst.size());
  return Status::OK();
}

Result<ObjectMeta> MemoryObjectStore::Head(std::string_view key) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  ReaderLock lock(&shared_->mu);
  auto it = shared_->objects.find(key);
  if (it == shared_->objects.end()) {
    return Status::NotFound(fmt::format("object '{}' not found", key));
  }
  return it->second.meta;
}

Result<ObjectMeta> MemoryObjectStore::Put(std::string_view key, std::string_view data,
                                          const PutOptions& options) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  QV_RETURN_IF_ERROR(ValidatePutOptions(options));
  SyncPoints* sp = options_.sync_points;
  QV_SYNC_POINT(sp, store_points::kPutTempWritten);
  QV_SYNC_POINT(sp, store_points::kPutTempSynced);
  ObjectMeta meta{std::string(key), data.size(), NextEtag(), options_.clock->NowNanos()};
  {
    WriterLock lock(&shared_->mu);
    auto it = shared_->objects.find(key);
    if (options.mode == PutMode::kCreateOnly && it != shared_->objects.end()) {
      return Status::AlreadyExists(fmt::format("object '{}' already exists", key));
    }
    if (options.mode == PutMode::kIfMatch) {
      if (it == shared_->objects.end()) {
        return Status::Conflict(
            fmt::format("object '{}' does not exist (expected etag {})", key, options.if_match));
      }
      if (it->second.meta.etag != options.if_match) {
        return Status::Conflict(fmt::format("object '{}' changed: etag is {}, expected {}", key,
                                            it->second.meta.etag, options.if_match));
      }
    }
    QV_SYNC_POINT(sp, store_points::kPutBeforePublish);
    shared_->objects[std::string(key)] = Shared::Object{std::string(data), meta};
  }
  QV_SYNC_POINT(sp, store_points::kPutAfterPublish);
  QV_SYNC_POINT(sp, store_points::kPutDone);
  return meta;
}

Status MemoryObjectStore::Delete(std::string_view key) {
  QV_RETURN_IF_ERROR(ValidateKey(key));
  WriterLock lock(&shared_->mu);
  auto it = shared_->objects.find(key);
  if (it != shared_->objects.end()) shared_->objects.erase(it);
  return Status::OK();
}

Result<ListPage> MemoryObjectStore::List(const ListOptions& options) {
  QV_RETURN_IF_ERROR(ValidateListOptions(options));
  ListPage page;
  ReaderLock lock(&shared_->mu);
  auto it = options.start_after < options.prefix
                ? shared_->objects.lower_bound(options.prefix)
                : shared_->objects.upper_bound(options.start_after);
  for (; it != shared_->objects.end(); ++it) {
    if (it->first.compare(0, options.prefix.size(), options.prefix) != 0) break;
    if (page.objects.size() == options.limit) {
      page.truncated = true;
      break;
    }
    page.objects.push_back(it->second.meta);
  }
  return page;
}

Status MemoryObjectStore::Copy(std::string_view src, std::string_view dst) {
  QV_RETURN_IF_ERROR(ValidateKey(src));
  QV_RETURN_IF_ERROR(ValidateKey(dst));
  WriterLock lock(&shared_->mu);
  auto it = shared_->objects.find(src);
  if (it == shared_->objects.end()) {
    return Status::NotFound(fmt::format("copy source '{}' not found", src));
  }
  ObjectMeta meta{std::string(dst), it->second.data.size(), NextEtag(), options_.clock->NowNanos()};
  std::string data = it->second.data;
  shared_->objects[std::string(dst)] = Shared::Object{std::move(data), std::move(meta)};
  return Status::OK();
}

Result<SweepReport> MemoryObjectStore::Sweep(Duration) {
  return SweepReport{};  // a memory Put is atomic: there is never a leftover to sweep
}

std::string MemoryObjectStore::Describe() const {
  return name_.empty() ? "memory:" : "memory://" + name_;
}

std::string MemoryObjectStore::ExternalPath(std::string_view key) const {
  return Describe() + (key.empty() ? "" : "/" + std::string(key));
}

}  // namespace quiver
