#include "query/top_k.h"

#include <algorithm>

namespace quiver::query {

void TopK::Offer(const Candidate& c) {
  if (k_ == 0) return;
  if (heap_.size() < k_) {
    heap_.push_back(c);
    std::push_heap(heap_.begin(), heap_.end());
    return;
  }
  if (!(c < heap_.front())) return;
  std::pop_heap(heap_.begin(), heap_.end());
  heap_.back() = c;
  std::push_heap(heap_.begin(), heap_.end());
}

void TopK::Merge(const TopK& other) {
  for (const Candidate& c : other.heap_) Offer(c);
}

std::vector<Candidate> TopK::Sorted() const {
  std::vector<Candidate> out = heap_;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace quiver::query
