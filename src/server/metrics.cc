#include "server/metrics.h"

#include <fmt/format.h>

namespace quiver::server {

void Metrics::Record(const std::string& operation, int status, double seconds) {
  MutexLock lock(&mu_);
  ++requests_[{operation, status}];
  Histogram& h = latency_[operation];
  for (size_t i = 0; i < kBucketsSeconds.size(); ++i) {
    if (seconds <= kBucketsSeconds[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
}

std::string Metrics::Render(const std::vector<Sample>& extra) const {
  std::string out;
  {
    MutexLock lock(&mu_);
    out += "# HELP quiver_requests_total HTTP requests served, by operation and status.\n";
    out += "# TYPE quiver_requests_total counter\n";
    for (const auto& [key, count] : requests_) {
      out += fmt::format("quiver_requests_total{{operation=\"{}\",status=\"{}\"}} {}\n", key.first,
                         key.second, count);
    }
    out += "# HELP quiver_request_duration_seconds Request latency, by operation.\n";
    out += "# TYPE quiver_request_duration_seconds histogram\n";
    for (const auto& [op, h] : latency_) {
      for (size_t i = 0; i < kBucketsSeconds.size(); ++i) {
        out +=
            fmt::format("quiver_request_duration_seconds_bucket{{operation=\"{}\",le=\"{}\"}} {}\n",
                        op, kBucketsSeconds[i], h.buckets[i]);
      }
      out +=
          fmt::format("quiver_request_duration_seconds_bucket{{operation=\"{}\",le=\"+Inf\"}} {}\n",
                      op, h.count);
      out += fmt::format("quiver_request_duration_seconds_sum{{operation=\"{}\"}} {}\n", op, h.sum);
      out += fmt::format("quiver_request_duration_seconds_count{{operation=\"{}\"}} {}\n", op,
                         h.count);
    }
  }
  std::string last_name;
  for (const Sample& s : extra) {
    if (s.name != last_name) {
      out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", s.name, s.help, s.name, s.type);
      last_name = s.name;
    }
    if (s.labels.empty()) {
      out += fmt::format("{} {}\n", s.name, s.value);
    } else {
      out += fmt::format("{}{{{}}} {}\n", s.name, s.labels, s.value);
    }
  }
  return out;
}

}  // namespace quiver::server
