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
  return s;
}

void CountingStore::Reset() {
  for (auto& c : calls_) c.store(0);
  for (auto& c : errors_) c.store(0);
  for (auto& c : puts_by_mode_) c.store(0);
}

void CountingStore::Count(StoreOp op, const Status& status) {
  calls_[static_cast<int>(op)].fetch_add(1);
  if (!status.ok()) errors_[static_cast<int>(op)].fetch_add(1);
}

void CountingStore::CountPut(PutMode mode, const Status& status) {
  Count(StoreOp::kPut, status);
  puts_by_mode_[static_cast<int>(mode)].fetch_add(1);
}

Result<GetResult> CountingStore::Get(std::string_view key, std::optional<ByteRange> range) {
  auto r = inner_->Get(key, range);
  Count(StoreOp::kGet, r.status());
  return r;
}

Status CountingStore::ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) {
  Status s = inner_->ReadAt(key, offset, dst);
  Count(StoreOp::kReadAt, s);
  return s;
}

Result<ObjectMeta> CountingStore::Head(std::string_view key) {
  auto r = inner_->Head(key);
  Count(StoreOp::kHead, r.status());
  return r;
}

Result<ObjectMeta> CountingStore::Put(std::string_view key, std::string_view data,
                                      const PutOptions& options) {
  auto r = inner_->Put(key, data, options);
  CountPut(options.mode, r.status());
  return r;
}

// Counts its Finish as the one put it is.
class CountingStore::Writer final : public ForwardingWriter {
 public:
  Writer(CountingStore* store, std::string key, PutMode mode, std::unique_ptr<ObjectWriter> inner)
      : ForwardingWriter(std::move(key), std::move(inner)), store_(store), mode_(mode) {}

 protected:
  Result<ObjectMeta> FinishImpl() override {
    Result<ObjectMeta> r = ForwardingWriter::FinishImpl();
    store_->CountPut(mode_, r.status());
    return r;
  }

 private:
  CountingStore* store_;
  PutMode mode_;
};

Result<std::unique_ptr<ObjectWriter>> CountingStore::OpenWriter(std::string_view key,
                                                                const PutOptions& options) {
  Result<std::unique_ptr<ObjectWriter>> inner = inner_->OpenWriter(key, options);
  if (!inner.ok()) {
    CountPut(options.mode, inner.status());
    return inner.status();
  }
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<Writer>(this, std::string(key), options.mode, std::move(*inner)));
}

Status CountingStore::Delete(std::string_view key) {
  Status s = inner_->Delete(key);
  Count(StoreOp::kDelete, s);
  return s;
}

Result<ListPage> CountingStore::List(const ListOptions& options) {
  auto r = inner_->List(options);
  Count(StoreOp::kList, r.status());
  return r;
}

Status CountingStore::Copy(std::string_view src, std::string_view dst) {
  Status s = inner_->Copy(src, dst);
  Count(StoreOp::kCopy, s);
  return s;
}

Result<SweepReport> CountingStore::Sweep(Duration min_age) {
  auto r = inner_->Sweep(min_age);
  Count(StoreOp::kSweep, r.status());
  return r;
}

std::string CountingStore::Describe() const { return "counting+" + inner_->Describe(); }

std::string CountingStore::ExternalPath(std::string_view key) const {
  return inner_->ExternalPath(key);
}

}  // namespace quiver
