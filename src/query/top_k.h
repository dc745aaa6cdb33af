// TopK: the k nearest candidates of one query vector seen so far, ordered by (distance, scan
// position) so that ties keep scan order, as Lance's flat search returns them (equal distances
// come back in row order).
//
// Thread-safety: not thread-safe; one per query vector, fed by one thread (or merged).
#pragma once

#include <cstdint>
#include <vector>

namespace quiver::query {

struct Candidate {
  float distance = 0;
  uint64_t position = 0;  // the row's place in the scan (ties: lower first)
  uint64_t row_addr = 0;

  bool operator<(const Candidate& o) const {
    return distance < o.distance || (distance == o.distance && position < o.position);
  }
};

class TopK {
 public:
  explicit TopK(uint64_t k) : k_(k) {}

  // Whether a candidate at `distance` could enter: a cheap test before building one.
  bool Admits(float distance) const {
    return heap_.size() < k_ || distance <= heap_.front().distance;
  }
  void Offer(const Candidate& c);
  // Folds another TopK's candidates in (parallel scans).
  void Merge(const TopK& other);
  // The candidates, nearest first.
  std::vector<Candidate> Sorted() const;
  uint64_t k() const { return k_; }

 private:
  uint64_t k_;
  std::vector<Candidate> heap_;  // a max-heap on operator<: front() is the worst kept
};

}  // namespace quiver::query
