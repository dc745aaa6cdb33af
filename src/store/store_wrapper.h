// StoreWrapper: the base of every store decorator (counting, latency, fault injection, prefix,
// read-only views). It forwards each call to the wrapped store, so a decorator overrides only
// what it changes (RocksDB's EnvWrapper, LevelDB's EnvWrapper).
//
// Two ways to change behaviour:
//   - Request hooks, for decorators that treat every request alike (count it, delay it, fail it):
//     BeforeRequest runs before a request is forwarded (a non-OK status fails the request with
//     that status and nothing is forwarded); AfterRequest sees every request's outcome,
//     including the ones BeforeRequest failed. A writer is one kPut request: its Finish passes
//     both hooks (with the writer's PutOptions), its Appends pass BeforeAppend only; an
//     OpenWriter that fails is reported to AfterRequest as a failed kPut (a Put with the same
//     bad key would have failed the same way).
//   - Overriding a call, for decorators that change what a call means (a prefix store maps keys;
//     a fault store's crash rules reach into the inner put). An override that still wants the
//     hooks calls the StoreWrapper version.
//
// Describe() is "<name>+<wrapped store's description>"; ExternalPath is the wrapped store's.
// Thread-safety: the forwarding is stateless; as thread-safe as the wrapped store and the
// derived class's hooks (which are called concurrently from every caller's thread).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "store/object_store.h"

namespace quiver {

class StoreWrapper : public ObjectStore {
 public:
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

  const std::shared_ptr<ObjectStore>& target() const { return target_; }

 protected:
  // `name` prefixes Describe() ("counting" → "counting+local:/root").
  StoreWrapper(std::shared_ptr<ObjectStore> target, std::string name)
      : target_(std::move(target)), name_(std::move(name)) {}

  // `put` is the request's PutOptions for kPut, else null.
  virtual Status BeforeRequest(StoreOp op, const PutOptions* put);
  virtual void AfterRequest(StoreOp op, const PutOptions* put, const Status& status);
  virtual Status BeforeAppend();

  // Runs `call` between the two hooks: the forwarding every default method does.
  template <typename Call>
  auto Hooked(StoreOp op, const PutOptions* put, Call&& call) -> decltype(call()) {
    if (Status before = BeforeRequest(op, put); !before.ok()) {
      AfterRequest(op, put, before);
      return before;
    }
    auto result = call();
    AfterRequest(op, put, StatusOf(result));
    return result;
  }

 private:
  class HookedWriter;
  static Status StatusOf(const Status& s) { return s; }
  template <typename T>
  static Status StatusOf(const Result<T>& r) {
    return r.status();
  }

  std::shared_ptr<ObjectStore> target_;
  std::string name_;
};

}  // namespace quiver
