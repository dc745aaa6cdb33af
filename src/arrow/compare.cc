#include "arrow/compare.h"

#include <cmath>
#include <cstring>

#include "arrow/json_lines.h"

namespace quiver::arrow {

namespace {

bool TypesEqual(const DataType& a, const DataType& b, bool check_names) {
  if (check_names) return a == b;
  if (a.id() != b.id() || a.children().size() != b.children().size()) return false;
  if (a.children().empty()) return a == b;
  if (a.id() == TypeId::kFixedSizeList && a.list_size() != b.list_size()) return false;
  if (a.id() == TypeId::kDictionary && a.index_type() != b.index_type()) return false;
  for (size_t k = 0; k < a.children().size(); ++k) {
    if (!TypesEqual(a.children()[k].type, b.children()[k].type, false)) return false;
  }
  return true;
}

template <typename F>
bool FloatsEqual(F x, F y, const EqualOptions& o) {
  if (std::isnan(x) || std::isnan(y)) return o.nan_equal && std::isnan(x) && std::isnan(y);
  if (x == y) return o.signed_zero_equal || std::signbit(x) == std::signbit(y);
  return false;
}

std::string Quote(std::string_view bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes.substr(0, 40)) {
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (bytes.size() > 40) out += "...(" + std::to_string(bytes.size()) + " bytes)";
  return out + "\"";
}

// A short rendering of a value, for difference messages: the JSON Lines rendering (shortest
// round-trip floats, so distinct values never print alike; ISO dates; decimal text; nested values
// in full up to a cap), except binary-like values, which show their bytes.
std::string Render(const ArrayData& a, int64_t i) {
  if (IsNull(a, i)) return "null";
  switch (a.type.id()) {
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return Quote(BinaryValue(a, i));
    case TypeId::kFixedSizeBinary:
      return Quote(FixedValue(a, i));
    default: {
      std::string json = ValueToJson(a, i);
      constexpr size_t kMax = 120;
      if (json.size() > kMax) json = json.substr(0, kMax) + "...";
      return json;
    }
  }
}

// Null, looking through dictionaries: a valid index that selects a null dictionary value is as
// null as a null index.
bool LogicallyNull(const ArrayData& a, int64_t i) {
  if (IsNull(a, i)) return true;
  if (a.type.id() != TypeId::kDictionary) return false;
  return LogicallyNull(*a.dictionary, DictionaryIndex(a, i));
}

class Differ {
 public:
  explicit Differ(const EqualOptions& options) : o_(options) {}

  // Row i of a against row j of b (same type). Returns the difference, or nullopt.
  std::optional<std::string> Row(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j,
                                 const std::string& path) {
    const bool a_null = LogicallyNull(a, i), b_null = LogicallyNull(b, j);
    if (a_null || b_null) {
      if (a_null == b_null) return std::nullopt;
      return Say(path, Render(a, i) + " != " + Render(b, j));
    }
    switch (a.type.id()) {
      case TypeId::kNull:
        return std::nullopt;
      case TypeId::kBool:
        if (BoolValue(a, i) == BoolValue(b, j)) return std::nullopt;
        break;
      case TypeId::kFloat16: {
        if (FloatsEqual(HalfToFloat(Values<uint16_t>(a)[i]), HalfToFloat(Values<uint16_t>(b)[j]),
                        o_)) {
          return std::nullopt;
        }
        break;
      }
      case TypeId::kFloat32:
        if (FloatsEqual(Values<float>(a)[i], Values<float>(b)[j], o_)) return std::nullopt;
        break;
      case TypeId::kFloat64:
        if (FloatsEqual(Values<double>(a)[i], Values<double>(b)[j], o_)) return std::nullopt;
        break;
      case TypeId::kUtf8:
      case TypeId::kLargeUtf8:
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
        if (BinaryValue(a, i) == BinaryValue(b, j)) return std::nullopt;
        break;
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kMap:
      case TypeId::kFixedSizeList: {
        auto [ab, ae] = ListRange(a, i);
        auto [bb, be] = ListRange(b, j);
        if (ae - ab != be - bb) {
          return Say(path, "list of " + std::to_string(ae - ab) + " items != list of " +
                               std::to_string(be - bb));
        }
        for (int64_t k = 0; k < ae - ab; ++k) {
          auto d = Row(*a.children[0], ab + k, *b.children[0], bb + k,
                       path + "[" + std::to_string(k) + "]");
          if (d) return d;
        }
        return std::nullopt;
      }
      case TypeId::kStruct: {
        for (size_t k = 0; k < a.children.size(); ++k) {
          auto d = Row(*a.children[k], a.offset + i, *b.children[k], b.offset + j,
                       path + "." + a.type.children()[k].name);
          if (d) return d;
        }
        return std::nullopt;
      }
      case TypeId::kDictionary:
        return Row(*a.dictionary, DictionaryIndex(a, i), *b.dictionary, DictionaryIndex(b, j),
                   path);
      default:  // integers, dates, timestamps, decimals, fixed-size binary
        if (FixedValue(a, i) == FixedValue(b, j)) return std::nullopt;
        break;
    }
    return Say(path, Render(a, i) + " != " + Render(b, j));
  }

 private:
  static std::string Say(const std::string& path, const std::string& what) {
    return path + ": " + what;
  }

  const EqualOptions& o_;
};

}  // namespace

std::optional<std::string> Diff(const ArrayData& a, const ArrayData& b,
                                const EqualOptions& options) {
  if (!TypesEqual(a.type, b.type, options.check_field_names)) {
    return "type " + a.type.ToString() + " != " + b.type.ToString();
  }
  if (a.length != b.length) {
    return "length " + std::to_string(a.length) + " != " + std::to_string(b.length);
  }
  Differ differ(options);
  for (int64_t i = 0; i < a.length; ++i) {
    auto d = differ.Row(a, i, b, i, "row " + std::to_string(i));
    if (d) return d;
  }
  return std::nullopt;
}

std::optional<std::string> Diff(const RecordBatch& a, const RecordBatch& b,
                                const EqualOptions& options) {
  if (a.schema->fields.size() != b.schema->fields.size()) {
    return "schema has " + std::to_string(a.schema->fields.size()) +
           " fields != " + std::to_string(b.schema->fields.size());
  }
  for (size_t k = 0; k < a.schema->fields.size(); ++k) {
    const Field& fa = a.schema->fields[k];
    const Field& fb = b.schema->fields[k];
    if (fa.name != fb.name || fa.nullable != fb.nullable) {
      return "field " + std::to_string(k) + ": " + fa.ToString() + " != " + fb.ToString();
    }
  }
  if (a.length != b.length) {
    return "batch length " + std::to_string(a.length) + " != " + std::to_string(b.length);
  }
  for (size_t k = 0; k < a.columns.size(); ++k) {
    auto d = Diff(*a.columns[k], *b.columns[k], options);
    if (d) return "column " + a.schema->fields[k].name + " " + *d;
  }
  return std::nullopt;
}

}  // namespace quiver::arrow
