#include "store/store_wrapper.h"

namespace quiver {

// The writer behind StoreWrapper::OpenWriter: Appends pass BeforeAppend, Finish is the kPut
// request and passes both request hooks.
class StoreWrapper::HookedWriter final : public ForwardingWriter {
 public:
  HookedWriter(StoreWrapper* store, std::string key, PutOptions options,
               std::unique_ptr<ObjectWriter> inner)
      : ForwardingWriter(std::move(key), std::move(inner)),
        store_(store),
        options_(std::move(options)) {}

 protected:
  Status AppendImpl(std::string_view bytes) override {
    QV_RETURN_IF_ERROR(store_->BeforeAppend());
    return ForwardingWriter::AppendImpl(bytes);
  }
  Result<ObjectMeta> FinishImpl() override {
    if (Status before = store_->BeforeRequest(StoreOp::kPut, &options_); !before.ok()) {
      // Refused before the inner store published anything: its temp data goes now, as after
      // any failed Finish.
      inner().Abort();
      store_->AfterRequest(StoreOp::kPut, &options_, before);
      return before;
    }
    Result<ObjectMeta> r = ForwardingWriter::FinishImpl();
    store_->AfterRequest(StoreOp::kPut, &options_, r.status());
    return r;
  }

 private:
  StoreWrapper* store_;
  PutOptions options_;
};

Status StoreWrapper::BeforeRequest(StoreOp, const PutOptions*) { return Status::OK(); }
void StoreWrapper::AfterRequest(StoreOp, const PutOptions*, const Status&) {}
Status StoreWrapper::BeforeAppend() { return Status::OK(); }

Result<GetResult> StoreWrapper::Get(std::string_view key, std::optional<ByteRange> range) {
  return Hooked(StoreOp::kGet, nullptr, [&] { return target_->Get(key, range); });
}

Status StoreWrapper::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  return Hooked(StoreOp::kReadAt, nullptr, [&] { return target_->ReadAt(key, offset, dst); });
}

Result<ObjectMeta> StoreWrapper::Head(std::string_view key) {
  return Hooked(StoreOp::kHead, nullptr, [&] { return target_->Head(key); });
}

Result<ObjectMeta> StoreWrapper::Put(std::string_view key, std::string_view data,
                                     const PutOptions& options) {
  return Hooked(StoreOp::kPut, &options, [&] { return target_->Put(key, data, options); });
}

Result<std::unique_ptr<ObjectWriter>> StoreWrapper::OpenWriter(std::string_view key,
                                                               const PutOptions& options) {
  Result<std::unique_ptr<ObjectWriter>> inner = target_->OpenWriter(key, options);
  if (!inner.ok()) {
    AfterRequest(StoreOp::kPut, &options, inner.status());
    return inner.status();
  }
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<HookedWriter>(this, std::string(key), options, std::move(*inner)));
}

Status StoreWrapper::Delete(std::string_view key) {
  return Hooked(StoreOp::kDelete, nullptr, [&] { return target_->Delete(key); });
}

Result<ListPage> StoreWrapper::List(const ListOptions& options) {
  return Hooked(StoreOp::kList, nullptr, [&] { return target_->List(options); });
}

Status StoreWrapper::Copy(std::string_view src, std::string_view dst) {
  return Hooked(StoreOp::kCopy, nullptr, [&] { return target_->Copy(src, dst); });
}

Result<SweepReport> StoreWrapper::Sweep(Duration min_age) {
  return Hooked(StoreOp::kSweep, nullptr, [&] { return target_->Sweep(min_age); });
}

std::string StoreWrapper::Describe() const { return name_ + "+" + target_->Describe(); }

std::string StoreWrapper::ExternalPath(std::string_view key) const {
  return target_->ExternalPath(key);
}

}  // namespace quiver
