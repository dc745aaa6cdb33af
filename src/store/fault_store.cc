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

}  // namespace

FaultInjectingStore::FaultInjectingStore(std::shared_ptr<ObjectStore> inner,
                                         SyncPoints* inner_points)
    : StoreWrapper(std::move(inner), "faults"), inner_points_(inner_points) {
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
  MutexLock lock(&mu_);
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
  MutexLock lock(&mu_);
  rules_.clear();
}

uint64_t FaultInjectingStore::fired() const {
  MutexLock lock(&mu_);
  return fired_;
}

Status FaultInjectingStore::BeforeTarget(int target, bool* crash) {
  Action action;
  {
    MutexLock lock(&mu_);
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

// A put that must crash runs with t_crash_this_put set, from here (the request is forwarded on
// this thread right after) to AfterRequest, so that the sync point fires inside the inner put or
// writer Finish.
Status FaultInjectingStore::BeforeRequest(StoreOp op, const PutOptions*) {
  bool crash = false;
  QV_RETURN_IF_ERROR(BeforeTarget(static_cast<int>(op), &crash));
  if (crash) t_crash_this_put = true;
  return Status::OK();
}

void FaultInjectingStore::AfterRequest(StoreOp, const PutOptions*, const Status&) {
  t_crash_this_put = false;
}

Status FaultInjectingStore::BeforeAppend() { return BeforeTarget(kAppendTarget, nullptr); }

}  // namespace quiver
