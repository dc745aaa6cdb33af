// ParseQueryJson (query_json.h).
#include "server/internal/query_json.h"

#include <fmt/format.h>

#include <limits>

namespace quiver::server::internal {

using nlohmann::json;

namespace {

bool Present(const json& body, const char* name) {
  auto it = body.find(name);
  return it != body.end() && !it->is_null();
}

Result<std::optional<uint64_t>> OptionalCount(const json& body, const char* name) {
  if (!Present(body, name)) return std::optional<uint64_t>();
  const json& v = body.at(name);
  if (v.is_number_unsigned()) return std::optional<uint64_t>(v.get<uint64_t>());
  if (v.is_number_integer()) {
    return Status::InvalidInput(fmt::format("'{}' must not be negative, got {}", name, v.dump()));
  }
  return Status::InvalidInput(
      fmt::format("'{}' must be a non-negative integer, got {}", name, v.dump()));
}

Result<std::optional<double>> OptionalNumber(const json& body, const char* name) {
  if (!Present(body, name)) return std::optional<double>();
  const json& v = body.at(name);
  if (!v.is_number()) {
    return Status::InvalidInput(fmt::format("'{}' must be a number, got {}", name, v.dump()));
  }
  return std::optional<double>(v.get<double>());
}

Result<bool> OptionalBool(const json& body, const char* name, bool dflt) {
  if (!Present(body, name)) return dflt;
  const json& v = body.at(name);
  if (!v.is_boolean()) {
    return Status::InvalidInput(fmt::format("'{}' must be a boolean, got {}", name, v.dump()));
  }
  return v.get<bool>();
}

Result<std::optional<std::string>> OptionalString(const json& body, const char* name) {
  if (!Present(body, name)) return std::optional<std::string>();
  const json& v = body.at(name);
  if (!v.is_string()) {
    return Status::InvalidInput(fmt::format("'{}' must be a string, got {}", name, v.dump()));
  }
  return std::optional<std::string>(v.get<std::string>());
}

Result<std::vector<double>> NumberArray(const json& a, const std::string& what) {
  std::vector<double> out;
  out.reserve(a.size());
  for (const json& x : a) {
    if (!x.is_number()) {
      return Status::InvalidInput(fmt::format("{} must hold numbers, got {}", what, x.dump()));
    }
    out.push_back(x.get<double>());
  }
  return out;
}

// [] / [x…] / [[x…]…] / {"single_vector": [x…]} / {"multi_vector": [[x…]…]}; no vectors for
// a scan.
Result<std::vector<std::vector<double>>> QueryVectors(const json& body) {
  std::vector<std::vector<double>> vectors;
  if (!Present(body, "vector")) return vectors;
  const json& v = body.at("vector");
  if (v.is_object()) {
    const bool single = Present(v, "single_vector"), multi = Present(v, "multi_vector");
    if (single && multi) {
      return Status::InvalidInput("'vector' holds both 'single_vector' and 'multi_vector'");
    }
    if (single) {
      const json& s = v.at("single_vector");
      if (!s.is_array()) return Status::InvalidInput("'vector.single_vector' must be an array");
      if (s.empty()) return vectors;
      QV_ASSIGN_OR_RETURN(auto one, NumberArray(s, "'vector.single_vector'"));
      vectors.push_back(std::move(one));
    } else if (multi) {
      const json& m = v.at("multi_vector");
      if (!m.is_array()) return Status::InvalidInput("'vector.multi_vector' must be an array");
      for (const json& row : m) {
        if (!row.is_array()) {
          return Status::InvalidInput("'vector.multi_vector' must be an array of arrays");
        }
        QV_ASSIGN_OR_RETURN(auto one, NumberArray(row, "'vector.multi_vector'"));
        vectors.push_back(std::move(one));
      }
    }
    return vectors;
  }
  if (!v.is_array()) {
    return Status::InvalidInput(fmt::format(
        "'vector' must be an array of numbers, an array of arrays or an object, got {}", v.dump()));
  }
  if (v.empty()) return vectors;
  if (v.front().is_array()) {
    for (const json& row : v) {
      if (!row.is_array()) {
        return Status::InvalidInput("'vector' mixes numbers and arrays");
      }
      QV_ASSIGN_OR_RETURN(auto one, NumberArray(row, "'vector'"));
      vectors.push_back(std::move(one));
    }
    return vectors;
  }
  QV_ASSIGN_OR_RETURN(auto one, NumberArray(v, "'vector'"));
  vectors.push_back(std::move(one));
  return vectors;
}

Status ParseColumns(const json& body, query::QueryRequest* r) {
  if (!Present(body, "columns")) return Status::OK();
  const json& c = body.at("columns");
  auto names = [&](const json& list, const char* what) -> Status {
    if (!list.is_array()) return Status::InvalidInput(fmt::format("'{}' must be an array", what));
    for (const json& n : list) {
      if (!n.is_string()) {
        return Status::InvalidInput(fmt::format("'{}' must hold strings, got {}", what, n.dump()));
      }
      r->columns.push_back(n.get<std::string>());
    }
    return Status::OK();
  };
  auto aliases = [&](const json& map, const char* what) -> Status {
    if (!map.is_object()) return Status::InvalidInput(fmt::format("'{}' must be an object", what));
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it.value().is_string()) {
        return Status::InvalidInput(
            fmt::format("'{}.{}' must be a SQL expression string", what, it.key()));
      }
      r->expressions.emplace_back(it.key(), it.value().get<std::string>());
    }
    return Status::OK();
  };
  if (c.is_array()) return names(c, "columns");
  if (!c.is_object()) {
    return Status::InvalidInput("'columns' must be a list of names or an object");
  }
  const bool spec_names = Present(c, "column_names"), spec_aliases = Present(c, "column_aliases");
  if (spec_names && spec_aliases) {
    return Status::InvalidInput("'columns' holds both 'column_names' and 'column_aliases'");
  }
  if (spec_names) return names(c.at("column_names"), "columns.column_names");
  if (spec_aliases) return aliases(c.at("column_aliases"), "columns.column_aliases");
  if (c.contains("column_names") || c.contains("column_aliases")) return Status::OK();  // nulls
  return aliases(c, "columns");  // the remote client's {alias: sql}
}

Status ParseOrderBy(const json& body, query::QueryRequest* r) {
  if (!Present(body, "order_by")) return Status::OK();
  const json& list = body.at("order_by");
  if (!list.is_array()) return Status::InvalidInput("'order_by' must be an array");
  for (const json& key : list) {
    if (!key.is_object()) return Status::InvalidInput("'order_by' must hold objects");
    query::SortKey k;
    QV_ASSIGN_OR_RETURN(auto column, OptionalString(key, "column_name"));
    if (!column) {
      QV_ASSIGN_OR_RETURN(column, OptionalString(key, "column"));
    }
    if (!column || column->empty()) {
      return Status::InvalidInput("'order_by' entries need a 'column_name'");
    }
    k.column = *column;
    QV_ASSIGN_OR_RETURN(k.ascending, OptionalBool(key, "ascending", true));
    QV_ASSIGN_OR_RETURN(k.nulls_first, OptionalBool(key, "nulls_first", false));
    r->order_by.push_back(std::move(k));
  }
  return Status::OK();
}

// The index parameters: checked for type, then ignored (the answer is exact).
Status CheckIndexParameters(const json& body) {
  for (const char* name :
       {"nprobes", "minimum_nprobes", "maximum_nprobes", "ef", "refine_factor"}) {
    QV_RETURN_IF_ERROR(OptionalCount(body, name).status());
  }
  for (const char* name : {"bypass_vector_index", "fast_search"}) {
    QV_RETURN_IF_ERROR(OptionalBool(body, name, false).status());
  }
  return OptionalString(body, "approx_mode").status();
}

}  // namespace

Result<QueryJson> ParseQueryJson(const json& body) {
  if (!body.is_object()) return Status::InvalidInput("the query must be a JSON object");
  QueryJson out;
  query::QueryRequest& r = out.request;
  QV_ASSIGN_OR_RETURN(out.version, OptionalCount(body, "version"));
  QV_ASSIGN_OR_RETURN(auto filter, OptionalString(body, "filter"));
  r.filter = filter.value_or("");
  QV_RETURN_IF_ERROR(ParseColumns(body, &r));
  QV_RETURN_IF_ERROR(ParseOrderBy(body, &r));
  QV_ASSIGN_OR_RETURN(auto offset, OptionalCount(body, "offset"));
  r.offset = offset.value_or(0);
  QV_ASSIGN_OR_RETURN(r.with_row_id, OptionalBool(body, "with_row_id", false));
  QV_ASSIGN_OR_RETURN(r.with_row_addr, OptionalBool(body, "with_row_addr", false));
  QV_RETURN_IF_ERROR(CheckIndexParameters(body));
  if (Present(body, "full_text_query")) {
    return Status::Unsupported(
        "full-text search needs a full-text (inverted) index, and quiver does not build indices "
        "yet; filter with LIKE / regexp_match instead (docs/COVERAGE.md)");
  }
  // `k` is required by the spec; a client that leaves it out gets the defaults.
  QV_ASSIGN_OR_RETURN(auto k, OptionalCount(body, "k"));
  QV_ASSIGN_OR_RETURN(auto vectors, QueryVectors(body));
  if (vectors.empty()) {
    for (const char* name : {"vector_column", "distance_type"}) {
      if (Present(body, name)) {
        QV_RETURN_IF_ERROR(OptionalString(body, name).status());
      }
    }
    if (k && *k != 0 && *k < static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      r.limit = *k;
    }
    return out;
  }
  query::VectorSearch nn;
  nn.vectors = std::move(vectors);
  nn.k = (k && *k != 0) ? *k : 10;
  QV_ASSIGN_OR_RETURN(auto column, OptionalString(body, "vector_column"));
  nn.column = column.value_or("");
  QV_ASSIGN_OR_RETURN(auto distance, OptionalString(body, "distance_type"));
  if (distance) {
    QV_ASSIGN_OR_RETURN(nn.distance, query::ParseDistanceType(*distance));
  }
  QV_ASSIGN_OR_RETURN(nn.lower_bound, OptionalNumber(body, "lower_bound"));
  QV_ASSIGN_OR_RETURN(nn.upper_bound, OptionalNumber(body, "upper_bound"));
  QV_ASSIGN_OR_RETURN(nn.prefilter, OptionalBool(body, "prefilter", true));
  r.nearest = std::move(nn);
  return out;
}

}  // namespace quiver::server::internal
