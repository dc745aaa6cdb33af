#include "store/fault_store.h"

#include <fmt/format.h>

namespace quiver {
namespace {

// Set while this thread runs a put that must crash before publishing; read by the sync point
// callback, which other threads' puts reach too.
thread_local bool t_crash_this_put = false;

Status InjectedCrash() {
  return Status(StatusCode::kInternal, "injected crash after write, before publish",
                Subcode::kInjected);
}

// Runs `call` (the inner put or writer Finish) so that the crash rule's sync point fires in it.
template <typename Call>
auto RunCrashing(Call&& call) {
  t_crash_this_put = true;
  auto result = call();
  t_crash_this_put = false;
  return result;
}

}  // namespace

FaultInjectingStore::FaultInjectingStore(std::shared_ptr<ObjectStore> inner,
                                         SyncPoints* inner_points)
    : inner_(std::move(inner)), inner_points_(inner_points) {
  if (inner_points_ != nullptr) {
    inner_points_->Set(store_points::kPutBeforePublish, [](std::string_view) {
      return t_crash_this_put ? InjectedCrash() : Status::OK();
    });
  }
}

FaultInjectingStore::~FaultInjectingStore() {
  if (inner_points_ != nullptr) inner_points_->Clear(store_points::kPutBeforePublish);
}

void FaultInjectingStore::Arm(Rule rule) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(std::move(rule));
}

void FaultInjectingStore::FailNth(StoreOp op, uint64_t n, Status status) {
  Arm(Rule{static_cast<int>(op), n == 0 ? 1 : n, Kind::kFail, std::move(status)});
}

void FaultInjectingStore::FailAlways(StoreOp op, Status status) {
  Arm(Rule{static_cast<int>(op), 0, Kind::kFail, std::move(status)});
}

void FaultInjectingStore::PauseNth(StoreOp op, uint64_t n, Gate* gate) {
  Arm(Rule{static_cast<int>(op), n == 0 ? 1 : n, Kind::kPause, Status::OK(), gate});
}

void FaultInjectingStore::FailNthAppend(uint64_t n, Status status) {
  Arm(Rule{kAppendTarget, n == 0 ? 1 : n, Kind::kFail, std::move(status)});
}

Status FaultInjectingStore::CrashNthPutBeforePublish(uint64_t n) {
  if (inner_points_ == nullptr) {
    return Status::InvalidInput(
        "crash injection needs the inner backend's SyncPoints (pass them to the constructor)");
  }
  Arm(Rule{static_cast<int>(StoreOp::kPut), n == 0 ? 1 : n, Kind::kCrash, Status::OK()});
  return Status::OK();
}

void FaultInjectingStore::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
}

uint64_t FaultInjectingStore::fired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fired_;
}

Status FaultInjectingStore::Before(StoreOp op, bool* crash) {
  return BeforeTarget(static_cast<int>(op), crash);
}

Status FaultInjectingStore::BeforeTarget(int target, bool* crash) {
  Action action;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Rule& rule : rules_) {
      if (rule.target != target || rule.spent) continue;
      ++rule.seen;
      if (action.fire) continue;  // a rule already fired for this call; keep counting the rest
      if (rule.n == 0 || rule.seen == rule.n) {
        if (rule.n != 0) rule.spent = true;
        action = Action{rule.kind, rule.status, rule.gate, true};
        ++fired_;
      }
    }
  }
  if (!action.fire) return Status::OK();
  switch (action.kind) {
    case Kind::kFail:
      return action.status;
    case Kind::kPause:
      if (action.gate != nullptr) action.gate->Arrive();
      return Status::OK();
    case Kind::kCrash:
      if (crash != nullptr) *crash = true;
      return Status::OK();
  }
  return Status::OK();
}

Result<GetResult> FaultInjectingStore::Get(std::string_view key, std::optional<ByteRange> range) {
  QV_RETURN_IF_ERROR(Before(StoreOp::kGet));
  return inner_->Get(key, range);
}

Result<ObjectMeta> FaultInjectingStore::Head(std::string_view key) {
  QV_RETURN_IF_ERROR(Before(StoreOp::kHead));
  return inner_->Head(key);
}

Status FaultInjectingStore::ReadAt(std::string_view key, uint64_t offset,
                                   std::span<std::byte> dst) {
  QV_RETURN_IF_ERROR(Before(StoreOp::kReadAt));
  return inner_->ReadAt(key, offset, dst);
}

Result<ObjectMeta> FaultInjectingStore::Put(std::string_view key, std::string_view data,
                                            const PutOptions& options) {
  bool crash = false;
  QV_RETURN_IF_ERROR(Before(StoreOp::kPut, &crash));
  if (!crash) return inner_->Put(key, data, options);
  return RunCrashing([&] { return inner_->Put(key, data, options); });
}

// Appends pass the append rules; Finish passes the put rules.
class FaultInjectingStore::Writer final : public ForwardingWriter {
 public:
  Writer(FaultInjectingStore* store, std::string key, std::unique_ptr<ObjectWriter> inner)
      : ForwardingWriter(std::move(key), std::move(inner)), store_(store) {}

 protected:
  Status AppendImpl(std::string_view bytes) override {
    QV_RETURN_IF_ERROR(store_->BeforeTarget(kAppendTarget, nullptr));
    return ForwardingWriter::AppendImpl(bytes);
  }
  Result<ObjectMeta> FinishImpl() override {
    bool crash = false;
    if (Status s = store_->Before(StoreOp::kPut, &crash); !s.ok()) {
      // The injected failure happens before the inner store publishes anything; its temp data
      // goes now, as after any failed Finish.
      inner().Abort();
      return s;
    }
    if (!crash) return ForwardingWriter::FinishImpl();
    return RunCrashing([&] { return ForwardingWriter::FinishImpl(); });
  }

 private:
  FaultInjectingStore* store_;
};

Result<std::unique_ptr<ObjectWriter>> FaultInjectingStore::OpenWriter(std::string_view key,
                                                                      const PutOptions& options) {
  QV_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> inner, inner_->OpenWriter(key, options));
  return std::unique_ptr<ObjectWriter>(
      std::make_unique<Writer>(this, std::string(key), std::move(inner)));
}

Status FaultInjectingStore::Delete(std::string_view key) {
  QV_RETURN_IF_ERROR(Before(StoreOp::kDelete));
  return inner_->Delete(key);
}

Result<ListPage> FaultInjectingStore::List(const ListOptions& options) {
  QV_RETURN_IF_ERROR(Before(StoreOp::kList));
  return inner_->List(options);
}

Status FaultInjectingStore::Copy(std::string_view src, std::string_view dst) {
  QV_RETURN_IF_ERROR(Before(StoreOp::kCopy));
  return inner_->Copy(src, dst);
}

Result<SweepReport> FaultInjectingStore::Sweep(Duration min_age) {
  QV_RETURN_IF_ERROR(Before(StoreOp::kSweep));
  return inner_->Sweep(min_age);
}

std::string FaultInjectingStore::Describe() const { return "faults+" + inner_->Describe(); }

std::string FaultInjectingStore::ExternalPath(std::string_view key) const {
  return inner_->ExternalPath(key);
}

}  // namespace quiver
