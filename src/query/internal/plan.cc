// Query planning (plan.h): every check a request must pass before data is read.
#include "query/internal/plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "expr/eval.h"
#include "expr/parser.h"
#include "format/arrow_schema.h"
#include "query/internal/row_schema.h"

namespace quiver::query::internal {

namespace {

constexpr const char* kRowId = "_rowid";
constexpr const char* kRowAddr = "_rowaddr";
constexpr const char* kRowOffset = "_rowoffset";
constexpr const char* kDistance = "_distance";

void AddOnce(std::vector<std::string>* list, const std::string& name) {
  if (std::find(list->begin(), list->end(), name) == list->end()) list->push_back(name);
}

// Table columns go to `table`, the specials set their flags.
struct Needs {
  std::vector<std::string> table;
  bool row_id = false, row_addr = false, row_offset = false;
  void Add(const std::string& name) {
    if (name == kRowId) {
      row_id = true;
    } else if (name == kRowAddr) {
      row_addr = true;
    } else if (name == kRowOffset) {
      row_offset = true;
    } else {
      AddOnce(&table, name);
    }
  }
  void AddAll(const expr::Expr& e) {
    std::vector<std::string> names;
    CollectColumns(e, &names);
    for (const auto& n : names) Add(n);
  }
};

Result<expr::ExprPtr> Parse(const std::string& sql, std::string_view what) {
  auto parsed = expr::ParseExpression(sql);
  if (!parsed.ok()) return parsed.status().WithContext(what);
  return *parsed;
}

}  // namespace

void CollectColumns(const expr::Expr& e, std::vector<std::string>* out) {
  if (e.kind == expr::Expr::Kind::kColumn && !e.path.empty()) AddOnce(out, e.path[0]);
  for (const auto& a : e.args) CollectColumns(*a, out);
}

Result<Plan> MakePlan(const table::Dataset& dataset, const QueryRequest& request) {
  Plan plan;
  plan.request = request;
  QV_ASSIGN_OR_RETURN(arrow::Schema table_schema, format::ToArrowSchema(dataset.schema()));
  // What expressions may name: the table's columns and the special columns.
  auto visible = std::make_shared<arrow::Schema>(table_schema);
  for (const char* special : {kRowId, kRowAddr, kRowOffset}) {
    visible->fields.push_back(arrow::Field{special, arrow::DataType::UInt64(), false});
  }
  QV_ASSIGN_OR_RETURN(arrow::RecordBatch empty, EmptyBatch(visible));
  if (!request.columns.empty() && !request.expressions.empty()) {
    return Status::InvalidInput("give columns either as names or as aliased expressions, not both");
  }
  const bool vector = request.nearest.has_value();
  if (vector && !request.order_by.empty()) {
    return Status::InvalidInput("order_by applies to plain queries, not to a vector search");
  }

  Needs scan;  // what the scan reads
  Needs late;  // what the take after ranking / sorting reads (vector and ordered queries)
  const bool takes = vector || !request.order_by.empty();
  Needs& output_needs = takes ? late : scan;

  if (!request.filter.empty()) {
    QV_ASSIGN_OR_RETURN(plan.filter, Parse(request.filter, "filter"));
    if (Status s = expr::CheckExpression(*plan.filter, *visible, /*want_bool=*/true); !s.ok()) {
      return s.WithContext("filter");
    }
  }

  // Vector search: the column, its query vectors, k.
  if (vector) {
    const VectorSearch& nn = *request.nearest;
    if (nn.k == 0) return Status::InvalidInput("k must be positive");  // Lance's words
    if (nn.vectors.empty()) return Status::InvalidInput("a vector search needs a query vector");
    plan.vector_column = nn.column;
    if (plan.vector_column.empty()) {
      // As LanceDB picks it: the vector columns whose dimension is the query's.
      const size_t dim = nn.vectors[0].size();
      std::vector<std::string> candidates;
      for (const auto& f : table_schema.fields) {
        if (IsVectorType(f.type) && static_cast<size_t>(f.type.list_size()) == dim) {
          candidates.push_back(f.name);
        }
      }
      if (candidates.empty()) {
        return Status::InvalidInput(fmt::format(
            "No vector column found to match with the query vector dimension: {}", dim));
      }
      if (candidates.size() > 1) {
        for (auto& c : candidates) c = "\"" + c + "\"";  // Lance prints them quoted
        return Status::InvalidInput(fmt::format(
            "More than one vector columns found, please specify which column to create index or "
            "query: [{}]",
            fmt::join(candidates, ", ")));
      }
      plan.vector_column = candidates[0];
    }
    const int at = table_schema.FieldIndex(plan.vector_column);
    if (at < 0) {
      return Status::InvalidInput(
          fmt::format("Query column '{}' not found in input schema", plan.vector_column));
    }
    const arrow::DataType& type = table_schema.fields[static_cast<size_t>(at)].type;
    for (const auto& v : nn.vectors) {
      QV_ASSIGN_OR_RETURN(PreparedQuery q, PrepareQuery(v, type, plan.vector_column, nn.distance));
      plan.queries.push_back(std::move(q));
    }
    if (nn.lower_bound && nn.upper_bound && *nn.lower_bound > *nn.upper_bound) {
      return Status::InvalidInput(
          fmt::format("lower_bound {} is above upper_bound {}", *nn.lower_bound, *nn.upper_bound));
    }
    if (request.offset > UINT64_MAX - nn.k) return Status::InvalidInput("offset + k overflows");
    plan.k_scan = nn.k + request.offset;
    scan.Add(plan.vector_column);
    scan.row_addr = true;
    plan.postfilter = plan.filter && !nn.prefilter;
  }
  if (plan.filter) plan.postfilter ? late.AddAll(*plan.filter) : scan.AddAll(*plan.filter);

  // Order by: keys are columns, read by the scan.
  for (const SortKey& key : request.order_by) {
    if (key.column.empty()) return Status::InvalidInput("order_by: a key without a column name");
    QV_ASSIGN_OR_RETURN(auto e, Parse(key.column, "order_by"));
    if (e->kind != expr::Expr::Kind::kColumn) {
      return Status::InvalidInput(fmt::format("order_by: '{}' is not a column name", key.column));
    }
    if (Status s = expr::CheckExpression(*e, *visible, /*want_bool=*/false); !s.ok()) {
      return s.WithContext("order_by");
    }
    QV_ASSIGN_OR_RETURN(auto keyed, expr::Evaluate(*e, empty));
    if (keyed->type.id() == arrow::TypeId::kStruct || keyed->type.id() == arrow::TypeId::kNull) {
      return Status::InvalidInput(fmt::format("order_by: column '{}' ({}) cannot be sorted",
                                              key.column, keyed->type.ToString()));
    }
    scan.AddAll(*e);
    plan.sort_keys.push_back(std::move(e));
  }
  if (!request.order_by.empty()) scan.row_addr = true;

  // Outputs.
  auto schema = std::make_shared<arrow::Schema>();
  auto add_output = [&](OutputColumn out, arrow::Field field) -> Status {
    for (const auto& f : schema->fields) {
      if (f.name == field.name) {
        return Status::InvalidInput(fmt::format("output column '{}' is given twice", field.name));
      }
    }
    schema->fields.push_back(std::move(field));
    plan.outputs.push_back(std::move(out));
    return Status::OK();
  };
  if (vector && request.nearest->vectors.size() > 1) {
    QV_RETURN_IF_ERROR(add_output({OutputColumn::Kind::kQueryIndex, "query_index", "", nullptr},
                                  arrow::Field{"query_index", arrow::DataType::Int32(), false}));
  }
  auto add_named = [&](const std::string& name) -> Status {
    if (name == kDistance) {
      if (!vector) return Status::InvalidInput("_distance is only defined for a vector search");
      return add_output({OutputColumn::Kind::kDistance, kDistance, "", nullptr},
                        arrow::Field{kDistance, arrow::DataType::Float32(), true});
    }
    const int at = visible->FieldIndex(name);
    if (at < 0) {
      return Status::InvalidInput(fmt::format("no column '{}' in the table's schema", name));
    }
    output_needs.Add(name);
    return add_output({OutputColumn::Kind::kSource, name, name, nullptr},
                      visible->fields[static_cast<size_t>(at)]);
  };
  if (!request.expressions.empty()) {
    for (const auto& [alias, sql] : request.expressions) {
      if (alias.empty()) return Status::InvalidInput("a projected expression needs a name");
      QV_ASSIGN_OR_RETURN(auto e, Parse(sql, fmt::format("column '{}'", alias)));
      if (e->kind == expr::Expr::Kind::kColumn && e->path.size() == 1 && e->path[0] == kDistance &&
          vector) {
        QV_RETURN_IF_ERROR(add_output({OutputColumn::Kind::kDistance, alias, "", nullptr},
                                      arrow::Field{alias, arrow::DataType::Float32(), true}));
        continue;
      }
      if (Status s = expr::CheckExpression(*e, *visible, /*want_bool=*/false); !s.ok()) {
        return s.WithContext(fmt::format("column '{}'", alias));
      }
      output_needs.AddAll(*e);
      if (e->kind == expr::Expr::Kind::kColumn && e->path.size() == 1) {
        // A bare column keeps its own type (no evaluation).
        const auto& field = visible->fields[static_cast<size_t>(visible->FieldIndex(e->path[0]))];
        QV_RETURN_IF_ERROR(add_output({OutputColumn::Kind::kSource, alias, e->path[0], nullptr},
                                      arrow::Field{alias, field.type, field.nullable}));
        continue;
      }
      QV_ASSIGN_OR_RETURN(auto typed, expr::Evaluate(*e, empty));
      QV_RETURN_IF_ERROR(add_output({OutputColumn::Kind::kExpression, alias, "", e},
                                    arrow::Field{alias, typed->type, true}));
    }
  } else if (!request.columns.empty()) {
    for (const auto& name : request.columns) QV_RETURN_IF_ERROR(add_named(name));
  } else {
    for (const auto& f : table_schema.fields) QV_RETURN_IF_ERROR(add_named(f.name));
  }
  auto has_output = [&](const char* name) {
    return std::any_of(plan.outputs.begin(), plan.outputs.end(), [&](const OutputColumn& o) {
      return (o.kind == OutputColumn::Kind::kSource && o.source == name && o.name == name) ||
             (o.kind == OutputColumn::Kind::kDistance && std::string(name) == kDistance);
    });
  };
  if (vector && !has_output(kDistance)) QV_RETURN_IF_ERROR(add_named(kDistance));
  if (request.with_row_id && !has_output(kRowId)) QV_RETURN_IF_ERROR(add_named(kRowId));
  if (request.with_row_addr && !has_output(kRowAddr)) QV_RETURN_IF_ERROR(add_named(kRowAddr));

  // `_rowoffset` only exists in the scan (a take cannot know it).
  if (late.row_offset) {
    return Status::InvalidInput(
        "_rowoffset can be used in a filter (before a vector search or a sort), not in its output");
  }
  plan.row_offset = scan.row_offset;
  plan.scan_row_id = scan.row_id;
  plan.scan_row_addr = scan.row_addr;
  plan.scan_columns = scan.table;
  plan.take_columns = late.table;
  plan.take_row_id = late.row_id;
  plan.take_row_addr = late.row_addr;
  if (plan.scan_columns.empty()) {
    // The scan reads at least one column (its rows are what is counted); the first is as good
    // as any: only its pages are decoded.
    plan.scan_columns.push_back(table_schema.fields.empty() ? "" : table_schema.fields[0].name);
    if (plan.scan_columns[0].empty()) return Status::InvalidInput("the table has no columns");
  }
  plan.output_schema = std::move(schema);
  return plan;
}

namespace {

std::string Join(const std::vector<std::string>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

std::string Metric(const Metrics* m, const StepMetrics& s) {
  if (m == nullptr) return "";
  return fmt::format(", metrics=[rows_in={}, rows_out={}, elapsed={:.3f}ms]", s.rows_in, s.rows_out,
                     static_cast<double>(s.nanos) / 1e6);
}

}  // namespace

std::string DescribePlan(const Plan& plan, const table::Dataset& dataset, bool verbose,
                         const Metrics* m) {
  std::vector<std::string> lines;  // innermost first; reversed and indented at the end
  const QueryRequest& r = plan.request;
  {
    std::string scan = fmt::format(
        "Scan: version={}{}, fragments={}, columns=[{}], row_id={}, row_addr={}", dataset.version(),
        dataset.branch() ? fmt::format(", branch={}", *dataset.branch()) : "",
        dataset.Stats().num_fragments, Join(plan.scan_columns), plan.scan_row_id,
        plan.scan_row_addr);
    if (plan.row_offset) scan += ", row_offset=true";
    if (verbose) scan += fmt::format(", batch_rows={}", r.batch_rows);
    if (m != nullptr) {
      scan += fmt::format(", metrics=[rows_out={}, bytes_read={}, requests={}, elapsed={:.3f}ms]",
                          m->scan.rows_out, m->bytes_read, m->requests,
                          static_cast<double>(m->scan.nanos) / 1e6);
    }
    lines.push_back(scan);
  }
  if (plan.filter && !plan.postfilter) {
    lines.push_back(fmt::format("Filter: {}{}", plan.filter->ToString(),
                                Metric(m, m ? m->filter : StepMetrics{})));
  }
  if (r.nearest) {
    const VectorSearch& nn = *r.nearest;
    std::string knn =
        fmt::format("KNN (exact): column={}, distance={}, k={}, queries={}", plan.vector_column,
                    DistanceTypeName(nn.distance), plan.k_scan, nn.vectors.size());
    if (nn.lower_bound) knn += fmt::format(", lower_bound={}", *nn.lower_bound);
    if (nn.upper_bound) knn += fmt::format(", upper_bound={}", *nn.upper_bound);
    lines.push_back(knn + Metric(m, m ? m->rank : StepMetrics{}));
  }
  if (!plan.sort_keys.empty()) {
    std::vector<std::string> keys;
    for (const SortKey& k : r.order_by) {
      keys.push_back(fmt::format("{} {} {}", k.column, k.ascending ? "ASC" : "DESC",
                                 k.nulls_first ? "NULLS FIRST" : "NULLS LAST"));
    }
    lines.push_back(fmt::format("Sort: {}{}", Join(keys), Metric(m, m ? m->sort : StepMetrics{})));
  }
  if (r.nearest || !plan.sort_keys.empty()) {
    std::vector<std::string> cols = plan.take_columns;
    if (plan.take_row_id) cols.push_back("_rowid");
    if (plan.take_row_addr) cols.push_back("_rowaddr");
    lines.push_back(
        fmt::format("Take: columns=[{}]{}", Join(cols), Metric(m, m ? m->take : StepMetrics{})));
  }
  if (plan.filter && plan.postfilter) {
    lines.push_back(fmt::format("Filter (post): {}{}", plan.filter->ToString(),
                                Metric(m, m ? m->filter : StepMetrics{})));
  }
  if (r.offset > 0 || r.limit) {
    lines.push_back(fmt::format("Limit: offset={}, limit={}{}", r.offset,
                                r.limit ? std::to_string(*r.limit) : "none",
                                Metric(m, m ? m->limit : StepMetrics{})));
  }
  {
    std::vector<std::string> outs;
    for (const OutputColumn& o : plan.outputs) {
      switch (o.kind) {
        case OutputColumn::Kind::kSource:
          outs.push_back(o.name == o.source ? o.name : fmt::format("{} AS {}", o.source, o.name));
          break;
        case OutputColumn::Kind::kExpression:
          outs.push_back(fmt::format("{} AS {}", o.expression->ToString(), o.name));
          break;
        case OutputColumn::Kind::kDistance:
        case OutputColumn::Kind::kQueryIndex:
          outs.push_back(o.name);
          break;
      }
    }
    lines.push_back(
        fmt::format("Project: [{}]{}", Join(outs), Metric(m, m ? m->project : StepMetrics{})));
  }
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t depth = i;
    text += std::string(2 * depth, ' ') + lines[lines.size() - 1 - i] + "\n";
  }
  return text;
}

}  // namespace quiver::query::internal
