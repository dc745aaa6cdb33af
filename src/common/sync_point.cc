#include "common/sync_point.h"

namespace quiver {

void SyncPoints::Set(std::string point, Callback callback) {
  std::lock_guard<std::mutex> lock(mu_);
  callbacks_[std::move(point)] = std::make_shared<Callback>(std::move(callback));
}

void SyncPoints::Clear(const std::string& point) {
  std::lock_guard<std::mutex> lock(mu_);
  callbacks_.erase(point);
}

void SyncPoints::ClearAll() {
  std::lock_guard<std::mutex> lock(mu_);
  callbacks_.clear();
}

Status SyncPoints::Reach(std::string_view point) {
  std::shared_ptr<Callback> callback;
  {
    std::lock_guard<std::mutex> lock(mu_);
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
  std::lock_guard<std::mutex> lock(mu_);
  auto it = hits_.find(point);
  return it == hits_.end() ? 0 : it->second;
}

void Gate::Arrive() {
  std::unique_lock<std::mutex> lock(mu_);
  ++arrivals_;
  cv_.notify_all();
  cv_.wait(lock, [this] { return open_; });
}

void Gate::WaitForArrivals(int n) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this, n] { return arrivals_ >= n; });
}

void Gate::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  open_ = true;
  cv_.notify_all();
}

int Gate::arrivals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return arrivals_;
}

SyncPoints::Callback Gate::AsCallback() {
  return [this](std::string_view) {
    Arrive();
    return Status::OK();
  };
}

}  // namespace quiver
