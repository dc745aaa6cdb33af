#include "store/latency_store.h"

namespace quiver {

LatencyStore::LatencyStore(std::shared_ptr<ObjectStore> inner, Clock* clock)
    : StoreWrapper(std::move(inner), "latency"), clock_(clock != nullptr ? clock : Clock::Real()) {}

void LatencyStore::SetDelay(StoreOp op, Duration delay) {
  delay_nanos_[static_cast<int>(op)].store(delay.count());
}

void LatencyStore::SetAllDelays(Duration delay) {
  for (auto& d : delay_nanos_) d.store(delay.count());
}

Status LatencyStore::BeforeRequest(StoreOp op, const PutOptions*) {
  int64_t nanos = delay_nanos_[static_cast<int>(op)].load();
  if (nanos > 0) clock_->SleepFor(Duration(nanos));
  return Status::OK();
}

}  // namespace quiver
