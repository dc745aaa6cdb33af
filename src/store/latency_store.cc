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

Result<ObjectMeta> LatencyStore::Head(std::string_view key) {
  Delay(StoreOp::kHead);
  return inner_->Head(key);
}

Result<ObjectMeta> LatencyStore::Put(std::string_view key, std::string_view data,
                                     const PutOptions& options) {
  Delay(StoreOp::kPut);
  return inner_->Put(key, data, options);
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
