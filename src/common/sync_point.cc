#include "common/sync_point.h"

namespace quiver {

void SyncPoints::Set(std::string point, Callback callback) {
  MutexLock lock(&mu_);
  callbacks_[std::move(point)] = std::make_shared<Callback>(std::move(callback));
}

void SyncPoints::Clear(const std::string& point) {
  MutexLock lock(&mu_);
  callbacks_.erase(point);
}

void SyncPoints::ClearAll() {
  MutexLock lock(&mu_);
  callbacks_.clear();
}

Status SyncPoints::Reach(std::string_view point) {
  std::shared_ptr<Callback> callback;
  {
    MutexLock lock(&mu_);
    auto hit = hits_.find(point);
    if (hit == hits_.end()) {
      hits_.emplace(std::string(point), 1);
    } else {
      ++hit->second;
    }
    auto it = callbacks_.find(point);
    if (it != callbacks_.end()) callback = it->second;
  }
  if (!callback) return Status::OK();
  return (*callback)(point);
}

uint64_t SyncPoints::HitCount(std::string_view point) const {
  MutexLock lock(&mu_);
  auto it = hits_.find(point);
  return it == hits_.end() ? 0 : it->second;
}

void Gate::Arrive() {
  MutexLock lock(&mu_);
  ++arrivals_;
  cv_.notify_all();
  while (!open_) mu_.Await(cv_);
}

void Gate::WaitForArrivals(int n) {
  MutexLock lock(&mu_);
  while (arrivals_ < n) mu_.Await(cv_);
}

void Gate::Open() {
  MutexLock lock(&mu_);
  open_ = true;
  cv_.notify_all();
}

int Gate::arrivals() const {
  MutexLock lock(&mu_);
  return arrivals_;
}

SyncPoints::Callback Gate::AsCallback() {
  return [this](std::string_view) {
    Arrive();
    return Status::OK();
  };
}

}  // namespace quiver
