#include "store/latency_store.h"

namespace quiver {

LatencyStore::LatencyStore(std::shared_ptr<ObjectStore> inner, Clock* clock)
    : inner_(std::move(inner)), clock_(clock != nullptr ? clock : Clock::Real()) {}

void LatencyStore::SetDelay(StoreOp op, Duration delay) {
  delay_nanos_[static_cast<int>(op)].store(delay.count());
}

void LatencyStore::SetAllDelays(Duration delay) {
  for (auto& d : delay_nanos_) d.store(delay.count());
}

void LatencyStore::Delay(StoreOp op) {
  int64_t nanos = delay_nanos_[static_cast<int>(op)].load();
  if (nanos > 0) clock_->SleepFor(Duration(nanos));
}

Result<GetResult> LatencyStore::Get(std::string_view key, std::optional<ByteRange> range) {
  Delay(StoreOp::kGet);
  return inner_->Get(key, range);
}

Status LatencyStore::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  Delay(StoreOp::kReadAt);
  return inner_->ReadAt(key, offset, dst);
}

Result<ObjectMeta> LatencyStore::Head(std::string_view key) {
  Delay(StoreOp::kHead);
  return inner_->Head(key);
}

Result<ObjectMeta> LatencyStore::Put(std::string_view key, std::string_view data,
                                     const PutOptions& options) {
  Delay(StoreOp::kPut);
  return inner_->Put(key, data, options);
}

// Finish is the round trip that publishes the object.
class LatencyStore::Writer final : public ForwardingWriter {
 public:
  Writer(LatencyStore* store, std::string key, std::unique_ptr<ObjectWriter> inner)
      : ForwardingWriter(std::move(key), std::move(inner)), store_(store) {}

 protected:
  Result<ObjectMeta> FinishImpl() override {
    store_->Delay(StoreOp::kPut);
    return ForwardingWriter::FinishImpl();
  }

 private:
  LatencyStore* store_;
};

Result<std::unique_ptr<ObjectWriter>> LatencyStore::OpenWriter(std::string_view key,
                                                               const PutOptions& options) {
  QV_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> inner, inner_->OpenWriter(key, options));
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<Writer>(this, std::string(key), std::move(inner)));
}

Status LatencyStore::Delete(std::string_view key) {
  Delay(StoreOp::kDelete);
  return inner_->Delete(key);
}

Result<ListPage> LatencyStore::List(const ListOptions& options) {
  Delay(StoreOp::kList);
  return inner_->List(options);
}

Status LatencyStore::Copy(std::string_view src, std::string_view dst) {
  Delay(StoreOp::kCopy);
  return inner_->Copy(src, dst);
}

Result<SweepReport> LatencyStore::Sweep(Duration min_age) {
  Delay(StoreOp::kSweep);
  return inner_->Sweep(min_age);
}

std::string LatencyStore::Describe() const { return "latency+" + inner_->Describe(); }

std::string LatencyStore::ExternalPath(std::string_view key) const {
  return inner_->ExternalPath(key);
}

}  // namespace quiver
