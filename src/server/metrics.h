// Metrics: request counters and latency histograms per operation, rendered in the Prometheus
// text exposition format together with gauges the caller supplies at scrape time (object-store
// requests by kind, the registry generation).
// Thread-safety: Record and Render may be called concurrently.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/mutex.h"

namespace quiver::server {

class Metrics {
 public:
  static constexpr std::array<double, 14> kBucketsSeconds = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  void Record(const std::string& operation, int status, double seconds);

  struct Sample {
    std::string name;    // metric name
    std::string labels;  // `kind="get"` (without braces), may be empty
    double value = 0;
    std::string help;
    std::string type;  // "counter" or "gauge"
  };
  // The whole exposition: this object's metrics followed by `extra`.
  std::string Render(const std::vector<Sample>& extra) const;

 private:
  struct Histogram {
    std::array<uint64_t, kBucketsSeconds.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable Mutex mu_;
  // (operation, status) -> count
  std::map<std::pair<std::string, int>, uint64_t> requests_ GUARDED_BY(mu_);
  std::map<std::string, Histogram> latency_ GUARDED_BY(mu_);  // operation -> histogram
};

}  // namespace quiver::server
