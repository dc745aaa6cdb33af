#include "store/counting_store.h"

#include <fmt/format.h>

namespace quiver {

uint64_t StoreCounts::TotalCalls() const {
  uint64_t total = 0;
  for (uint64_t c : calls) total += c;
  return total;
}

StoreCounts StoreCounts::Since(const StoreCounts& before) const {
  StoreCounts d;
  for (int i = 0; i < kNumStoreOps; ++i) {
    d.calls[i] = calls[i] - before.calls[i];
    d.errors[i] = errors[i] - before.errors[i];
  }
  for (int i = 0; i < 3; ++i) d.puts_by_mode[i] = puts_by_mode[i] - before.puts_by_mode[i];
  d.bytes_read = bytes_read - before.bytes_read;
  return d;
}

std::string StoreCounts::ToString() const {
  std::string out;
  for (int i = 0; i < kNumStoreOps; ++i) {
    auto op = static_cast<StoreOp>(i);
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", StoreOpName(op), calls[i]);
    if (op == StoreOp::kPut) {
      out += fmt::format("(overwrite={} create_only={} if_match={})", puts_by_mode[0],
                         puts_by_mode[1], puts_by_mode[2]);
    }
    if (errors[i] != 0) out += fmt::format("[{} failed]", errors[i]);
  }
  return out;
}

StoreCounts CountingStore::Snapshot() const {
  StoreCounts s;
  for (int i = 0; i < kNumStoreOps; ++i) {
    s.calls[i] = calls_[i].load();
    s.errors[i] = errors_[i].load();
  }
  for (int i = 0; i < 3; ++i) s.puts_by_mode[i] = puts_by_mode_[i].load();
  s.bytes_read = bytes_read_.load();
  return s;
}

void CountingStore::Reset() {
  for (auto& c : calls_) c.store(0);
  for (auto& c : errors_) c.store(0);
  for (auto& c : puts_by_mode_) c.store(0);
  bytes_read_.store(0);
}

Result<GetResult> CountingStore::Get(std::string_view key, std::optional<ByteRange> range) {
  auto result = StoreWrapper::Get(key, range);
  if (result.ok()) bytes_read_.fetch_add(result->data.size());
  return result;
}

Status CountingStore::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  Status s = StoreWrapper::ReadAt(key, offset, dst);
  if (s.ok()) bytes_read_.fetch_add(dst.size());
  return s;
}

void CountingStore::AfterRequest(StoreOp op, const PutOptions* put, const Status& status) {
  calls_[static_cast<int>(op)].fetch_add(1);
  if (!status.ok()) errors_[static_cast<int>(op)].fetch_add(1);
  if (put != nullptr) puts_by_mode_[static_cast<int>(put->mode)].fetch_add(1);
}

}  // namespace quiver
