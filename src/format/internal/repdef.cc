#include "format/internal/repdef.h"

#include <limits>

#include <fmt/format.h>

namespace quiver::format::internal {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// Definition-level numbering of one layer (§3.1): inner layers claim the small numbers.
struct LayerPlan {
  LayerKind kind;
  bool is_list;
  uint32_t null_def = kNone;
  uint32_t empty_def = kNone;
  uint32_t cum = 0;        // largest number claimed by this layer and the ones inside it
  uint32_t cum_inner = 0;  // largest number claimed strictly inside it
  int depth = 0;           // lists: 1 = innermost list
  uint32_t exist_limit = std::numeric_limits<uint32_t>::max();  // def <= this: element exists
  int start_rep = 0;                                            // rep >= this: a new element starts
};

// Plans outermost first.
std::vector<LayerPlan> PlanLayers(const std::vector<LayerKind>& layers) {
  std::vector<LayerPlan> inner_first;
  uint32_t num = 0;
  int lists = 0;
  for (LayerKind kind : layers) {
    LayerPlan p{kind, IsListLayer(kind)};
    p.cum_inner = num;
    switch (kind) {
      case LayerKind::kNullableItem:
      case LayerKind::kNullableList:
        p.null_def = ++num;
        break;
      case LayerKind::kEmptyableList:
        p.empty_def = ++num;
        break;
      case LayerKind::kNullAndEmptyList:
        p.null_def = ++num;
        p.empty_def = ++num;
        break;
      default:
        break;
    }
    p.cum = num;
    if (p.is_list) p.depth = ++lists;
    inner_first.push_back(p);
  }
  const int max_rep = lists;
  std::vector<LayerPlan> plans(inner_first.rbegin(), inner_first.rend());
  // Walk outermost first, remembering the innermost list seen so far (the one around layer k).
  const LayerPlan* around = nullptr;
  for (LayerPlan& p : plans) {
    if (around != nullptr) {
      p.exist_limit = around->cum_inner;
      p.start_rep = around->depth - 1;
    } else {
      p.start_rep = max_rep;  // elements outside every list are rows
    }
    if (p.is_list) around = &p;
  }
  return plans;
}

}  // namespace

int MaxRep(const std::vector<LayerKind>& layers) {
  int n = 0;
  for (LayerKind k : layers) n += IsListLayer(k) ? 1 : 0;
  return n;
}

uint16_t MaxVisibleDef(const std::vector<LayerKind>& layers) {
  std::vector<LayerPlan> plans = PlanLayers(layers);
  return static_cast<uint16_t>(
      std::min<uint32_t>(plans.back().exist_limit, std::numeric_limits<uint16_t>::max()));
}

Result<std::vector<UnraveledLayer>> Unravel(const std::vector<LayerKind>& layers,
                                            const LevelsView& levels,
                                            const std::vector<bool>& large_offsets,
                                            arrow::MemoryPool* pool) {
  if (layers.empty()) return Status::Corruption("a page without structural layers");
  std::vector<LayerPlan> plans = PlanLayers(layers);
  const size_t m = plans.size();
  if (m > 64) return Status::Corruption("more than 64 rep/def layers");
  if (large_offsets.size() != m) return Status::Internal("Unravel: one offset flag per layer");
  const int max_rep = MaxRep(layers);
  const uint32_t max_def = plans.front().cum;
  const uint64_t n = levels.num_levels;
  if (max_rep > 0 && levels.rep == nullptr && n > 0) {
    return Status::Corruption("a page with list layers has no repetition levels");
  }
  if (levels.rep == nullptr && levels.def == nullptr) {
    // No lists and no nulls: every layer has one valid element per level.
    std::vector<UnraveledLayer> out(m);
    for (size_t k = 0; k < m; ++k) out[k].length = static_cast<int64_t>(n);
    if (max_rep > 0 && n > 0) return Status::Corruption("list layers without levels");
    return out;
  }

  // Per layer: element validity bits and list offsets, grown as elements appear.
  std::vector<arrow::BufferBuilder> validity;
  std::vector<arrow::BufferBuilder> offsets;
  std::vector<int64_t> count(m + 1, 0), nulls(m, 0);
  for (size_t k = 0; k < m; ++k) {
    validity.emplace_back(pool);
    offsets.emplace_back(pool);
  }
  auto push_offset = [&](size_t k, int64_t v) -> Status {
    return large_offsets[k] ? offsets[k].AppendValue<int64_t>(v)
                            : offsets[k].AppendValue<int32_t>(static_cast<int32_t>(v));
  };
  auto push_valid = [&](size_t k, bool valid) -> Status {
    const int64_t i = count[k];
    if ((i & 7) == 0) QV_RETURN_IF_ERROR(validity[k].AppendValue<uint8_t>(0));
    if (valid) {
      arrow::SetBit(validity[k].mutable_data(), i);
    } else {
      ++nulls[k];
    }
    return Status::OK();
  };

  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t rep = levels.rep != nullptr ? levels.rep[i] : static_cast<uint32_t>(max_rep);
    const uint32_t def = levels.def != nullptr ? levels.def[i] : 0;
    if (rep > static_cast<uint32_t>(max_rep) || def > max_def) {
      return Status::Corruption(
          fmt::format("level {}: repetition {} / definition {} beyond the "
                      "page's layers (max {} / {})",
                      i, rep, def, max_rep, max_def));
    }
    if (i == 0 && rep != static_cast<uint32_t>(max_rep)) {
      return Status::Corruption("levels do not start at a row boundary");
    }
    for (size_t k = 0; k < m; ++k) {
      const LayerPlan& p = plans[k];
      if (def > p.exist_limit) break;  // stopped by a null or empty list outside layer k
      if (static_cast<int>(rep) < p.start_rep) continue;  // continues an existing element
      const bool valid = def <= p.cum_inner;
      if (!valid && def == p.empty_def) {
        // An empty list: valid, no children.
        QV_RETURN_IF_ERROR(push_valid(k, true));
      } else {
        QV_RETURN_IF_ERROR(push_valid(k, valid));
      }
      if (p.is_list) QV_RETURN_IF_ERROR(push_offset(k, count[k + 1]));
      ++count[k];
    }
  }

  std::vector<UnraveledLayer> out(m);
  for (size_t k = 0; k < m; ++k) {
    UnraveledLayer& layer = out[k];
    layer.is_list = plans[k].is_list;
    layer.length = count[k];
    layer.null_count = nulls[k];
    if (layer.is_list) {
      if (k + 1 >= m) return Status::Corruption("a list layer without an item layer inside it");
      QV_RETURN_IF_ERROR(push_offset(k, count[k + 1]));
      QV_ASSIGN_OR_RETURN(layer.offsets, offsets[k].Finish());
    }
    if (nulls[k] > 0) {
      QV_ASSIGN_OR_RETURN(layer.validity, validity[k].Finish());
    }
  }
  return out;
}

}  // namespace quiver::format::internal
