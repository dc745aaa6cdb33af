// MergeInsert (merge_insert.h).
#include "query/merge_insert.h"

#include <fmt/format.h>

#include <cstring>
#include <unordered_map>

#include "arrow/concatenate.h"
#include "expr/eval.h"
#include "expr/parser.h"
#include "format/arrow_schema.h"
#include "query/internal/on_latest.h"
#include "query/internal/row_schema.h"
#include "query/query.h"
#include "table/dataset.h"
#include "table/update_rows.h"
#include "table/write.h"

namespace quiver::query {

namespace {

using SourceRow = std::pair<uint32_t, uint32_t>;  // (batch, row) in the source

bool IsScalarKey(const arrow::DataType& type) {
  using arrow::TypeId;
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kDictionary:
    case TypeId::kNull:
      return false;
    default:
      return true;
  }
}

// The key of row `i` as bytes (each column's value, lengths before variable ones); false when a
// key column is NULL there: such a row matches nothing.
bool KeyOf(const std::vector<const arrow::ArrayData*>& keys, int64_t i, std::string* out) {
  out->clear();
  for (const arrow::ArrayData* column : keys) {
    if (arrow::IsNull(*column, i)) return false;
    const arrow::TypeId id = column->type.id();
    if (id == arrow::TypeId::kBool) {
      out->push_back(arrow::BoolValue(*column, i) ? '\1' : '\0');
    } else if (arrow::IsBinaryLike(id)) {
      std::string_view v = arrow::BinaryValue(*column, i);
      uint64_t n = v.size();
      out->append(reinterpret_cast<const char*>(&n), sizeof(n));
      out->append(v);
    } else {
      out->append(arrow::FixedValue(*column, i));
    }
  }
  return true;
}

// "id = 1" for Lance's ambiguity message.
std::string KeyText(const std::vector<std::string>& on,
                    const std::vector<const arrow::ArrayData*>& keys, int64_t i) {
  std::string out;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (k > 0) out += " AND ";
    const arrow::ArrayData& c = *keys[k];
    std::string value = "…";
    if (arrow::IsBinaryLike(c.type.id())) {
      value = fmt::format("'{}'", arrow::BinaryValue(c, i));
    } else if (arrow::IsInteger(c.type.id())) {
      const std::string_view bytes = arrow::FixedValue(c, i);
      int64_t v = 0;
      std::memcpy(&v, bytes.data(), std::min(bytes.size(), sizeof(v)));
      if (arrow::IsSignedInteger(c.type.id()) && bytes.size() < sizeof(v) &&
          (bytes.back() & 0x80) != 0) {
        v |= -(int64_t{1} << (8 * bytes.size()));  // sign-extend
      }
      value = std::to_string(v);
    }
    out += fmt::format("{} = {}", on[k], value);
  }
  return out;
}

// The rows at `at`, in that order, as one batch of `schema` (runs of consecutive rows of one
// batch are one slice).
Result<arrow::RecordBatch> Gather(const std::shared_ptr<const arrow::Schema>& schema,
                                  const std::vector<arrow::RecordBatch>& batches,
                                  const std::vector<SourceRow>& at) {
  arrow::RecordBatch out;
  out.schema = schema;
  out.length = static_cast<int64_t>(at.size());
  for (size_t c = 0; c < schema->fields.size(); ++c) {
    std::vector<arrow::ArrayPtr> pieces;
    for (size_t i = 0; i < at.size();) {
      size_t j = i + 1;
      while (j < at.size() && at[j].first == at[i].first && at[j].second == at[j - 1].second + 1) {
        ++j;
      }
      pieces.push_back(
          arrow::Slice(batches[at[i].first].columns[c], at[i].second, static_cast<int64_t>(j - i)));
      i = j;
    }
    if (pieces.empty()) {
      QV_ASSIGN_OR_RETURN(auto empty, arrow::MakeNullArray(schema->fields[c].type, 0));
      out.columns.push_back(std::move(empty));
    } else {
      QV_ASSIGN_OR_RETURN(auto column, arrow::Concatenate(pieces));
      out.columns.push_back(std::move(column));
    }
  }
  return out;
}

// `rows` with one more, last column: `_rowaddr` = `addresses`.
Result<arrow::RecordBatch> WithAddresses(arrow::RecordBatch rows,
                                         const std::shared_ptr<const arrow::Schema>& schema,
                                         const std::vector<uint64_t>& addresses) {
  QV_ASSIGN_OR_RETURN(auto column, arrow::MakeFixedArray(arrow::DataType::UInt64(), addresses));
  rows.columns.push_back(std::move(column));
  rows.schema = schema;
  return rows;
}

// The schema a matched condition sees: struct columns `source` and `target` of the table's.
std::shared_ptr<arrow::Schema> PairSchema(const arrow::Schema& table) {
  auto schema = std::make_shared<arrow::Schema>();
  arrow::DataType row = arrow::DataType::Struct(table.fields);
  schema->fields.emplace_back("source", row, false);
  schema->fields.emplace_back("target", row, false);
  return schema;
}

Result<arrow::RecordBatch> PairBatch(const std::shared_ptr<arrow::Schema>& schema,
                                     const arrow::RecordBatch& source,
                                     const std::vector<arrow::ArrayPtr>& target) {
  arrow::RecordBatch out;
  out.schema = schema;
  out.length = source.length;
  QV_ASSIGN_OR_RETURN(
      auto s, arrow::MakeStructArray(schema->fields[0].type, source.length, source.columns));
  QV_ASSIGN_OR_RETURN(auto t,
                      arrow::MakeStructArray(schema->fields[1].type, source.length, target));
  out.columns = {std::move(s), std::move(t)};
  return out;
}

struct CheckedSpec {
  std::vector<size_t> keys;  // in the table's columns
  expr::ExprPtr condition;   // null: every matched row
  expr::ExprPtr filter;      // null: every unmatched target row
  std::shared_ptr<arrow::Schema> pairs;
};

Result<expr::ExprPtr> ParseChecked(const std::string& sql, const arrow::Schema& schema,
                                   std::string_view what) {
  auto parsed = expr::ParseExpression(sql);
  if (!parsed.ok()) return parsed.status().WithContext(std::string(what));
  QV_RETURN_IF_ERROR(
      expr::CheckExpression(**parsed, schema, /*want_bool=*/true).WithContext(std::string(what)));
  return *parsed;
}

Result<CheckedSpec> CheckSpec(const MergeInsertSpec& spec, const arrow::Schema& table,
                              const arrow::Schema& source) {
  if (spec.on.empty()) return Status::InvalidInput("merge insert needs at least one key column");
  if (!spec.when_matched_update_all && !spec.when_not_matched_insert_all &&
      !spec.when_not_matched_by_source_delete) {
    return Status::InvalidInput(
        "merge insert needs at least one of when_matched_update_all, "
        "when_not_matched_insert_all and when_not_matched_by_source_delete");
  }
  QV_RETURN_IF_ERROR(table::CheckAppendSchema(table, source).WithContext("merge insert source"));
  CheckedSpec out;
  for (const std::string& name : spec.on) {
    const int at = table.FieldIndex(name);
    if (at < 0) {
      return Status(StatusCode::kTableColumnNotFound,
                    fmt::format("merge key '{}' is not a column of the table", name));
    }
    if (!IsScalarKey(table.fields[static_cast<size_t>(at)].type)) {
      return Status::InvalidInput(
          fmt::format("merge key '{}' must be a scalar column, not {}", name,
                      table.fields[static_cast<size_t>(at)].type.ToString()));
    }
    out.keys.push_back(static_cast<size_t>(at));
  }
  out.pairs = PairSchema(table);
  if (spec.when_matched_update_all && !spec.when_matched_update_all_filt.empty()) {
    QV_ASSIGN_OR_RETURN(out.condition, ParseChecked(spec.when_matched_update_all_filt, *out.pairs,
                                                    "when_matched_update_all_filt"));
  }
  if (spec.when_not_matched_by_source_delete &&
      !spec.when_not_matched_by_source_delete_filt.empty()) {
    auto visible = internal::WithRowAddress(table);
    QV_ASSIGN_OR_RETURN(out.filter,
                        ParseChecked(spec.when_not_matched_by_source_delete_filt, *visible,
                                     "when_not_matched_by_source_delete_filt"));
  }
  return out;
}

Result<MergeInsertResult> MergeOnce(const std::shared_ptr<const table::Dataset>& dataset,
                                    const std::shared_ptr<const arrow::Schema>& schema,
                                    const std::vector<arrow::RecordBatch>& source,
                                    const MergeInsertSpec& spec,
                                    const table::CommitOptions& options) {
  QV_ASSIGN_OR_RETURN(arrow::Schema table, format::ToArrowSchema(dataset->schema()));
  QV_ASSIGN_OR_RETURN(CheckedSpec checked, CheckSpec(spec, table, *schema));
  std::vector<std::string> key_names = spec.on;

  // The source by key; which source rows some target row matched.
  std::unordered_map<std::string, std::vector<SourceRow>> by_key;
  std::vector<std::vector<bool>> matched(source.size());
  std::string key;
  for (size_t b = 0; b < source.size(); ++b) {
    matched[b].assign(static_cast<size_t>(source[b].length), false);
    std::vector<const arrow::ArrayData*> keys;
    for (size_t k : checked.keys) keys.push_back(source[b].columns[k].get());
    for (int64_t r = 0; r < source[b].length; ++r) {
      if (KeyOf(keys, r, &key)) {
        by_key[key].push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(r)});
      }
    }
  }

  // The target with `_rowaddr` (query.h), batch by batch: the key columns only, unless a
  // condition or filter reads the target's other columns (then every column). An upsert thus
  // reads its keys, not the vectors of a million rows.
  QueryRequest request;
  request.with_row_addr = true;
  const bool every_column = checked.condition != nullptr || checked.filter != nullptr;
  std::vector<size_t> batch_keys = checked.keys;  // the keys' columns in the scanned batches
  if (!every_column) {
    for (size_t k = 0; k < checked.keys.size(); ++k) {
      request.columns.push_back(table.fields[checked.keys[k]].name);
      batch_keys[k] = k;
    }
  }
  QV_ASSIGN_OR_RETURN(auto rows, RunQuery(dataset, request));
  std::vector<SourceRow> updated_from;
  std::vector<uint64_t> updated_at;
  std::vector<uint64_t> deleted;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, rows->Next());
    if (!batch) break;
    const uint64_t* addrs = arrow::Values<uint64_t>(*batch->columns.back());
    std::vector<const arrow::ArrayData*> keys;
    for (size_t k : batch_keys) keys.push_back(batch->columns[k].get());
    std::vector<bool> candidate(static_cast<size_t>(batch->length), false);
    std::vector<bool> unmatched(static_cast<size_t>(batch->length), false);
    std::vector<SourceRow> candidate_from;
    for (int64_t i = 0; i < batch->length; ++i) {
      auto hit = KeyOf(keys, i, &key) ? by_key.find(key) : by_key.end();
      if (hit == by_key.end()) {
        unmatched[static_cast<size_t>(i)] = true;
        continue;
      }
      for (const SourceRow& s : hit->second) matched[s.first][s.second] = true;
      if (!spec.when_matched_update_all) continue;
      if (hit->second.size() > 1) {
        return Status::InvalidInput(fmt::format(
            "Ambiguous merge inserts are prohibited: multiple source rows match the same target "
            "row on ({}). Please ensure each target row is matched by at most one source row.",
            KeyText(key_names, keys, i)));
      }
      candidate[static_cast<size_t>(i)] = true;
      candidate_from.push_back(hit->second.front());
    }
    if (!candidate_from.empty()) {
      std::vector<bool> pass(candidate_from.size(), true);
      if (checked.condition) {
        QV_ASSIGN_OR_RETURN(arrow::RecordBatch from, Gather(schema, source, candidate_from));
        std::vector<arrow::ArrayPtr> target;
        for (size_t c = 0; c < table.fields.size(); ++c) {
          QV_ASSIGN_OR_RETURN(auto column, arrow::SelectRows(batch->columns[c], candidate));
          target.push_back(std::move(column));
        }
        QV_ASSIGN_OR_RETURN(arrow::RecordBatch pairs, PairBatch(checked.pairs, from, target));
        QV_ASSIGN_OR_RETURN(pass, expr::EvaluateFilter(*checked.condition, pairs));
      }
      size_t k = 0;
      for (int64_t i = 0; i < batch->length; ++i) {
        if (!candidate[static_cast<size_t>(i)]) continue;
        if (pass[k]) {
          updated_from.push_back(candidate_from[k]);
          updated_at.push_back(addrs[i]);
        }
        ++k;
      }
    }
    if (spec.when_not_matched_by_source_delete) {
      std::vector<bool> remove = unmatched;
      if (checked.filter) {
        QV_ASSIGN_OR_RETURN(std::vector<bool> selected,
                            expr::EvaluateFilter(*checked.filter, *batch));
        for (size_t i = 0; i < remove.size(); ++i) remove[i] = remove[i] && selected[i];
      }
      for (size_t i = 0; i < remove.size(); ++i) {
        if (remove[i]) deleted.push_back(addrs[i]);
      }
    }
  }

  std::vector<SourceRow> inserted_from;
  if (spec.when_not_matched_insert_all) {
    for (size_t b = 0; b < source.size(); ++b) {
      for (size_t r = 0; r < matched[b].size(); ++r) {
        if (!matched[b][r])
          inserted_from.push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(r)});
      }
    }
  }
  auto with_addr = internal::WithRowAddress(table);
  std::vector<arrow::RecordBatch> replacements;
  if (!updated_from.empty()) {
    QV_ASSIGN_OR_RETURN(auto rows_updated, Gather(schema, source, updated_from));
    QV_ASSIGN_OR_RETURN(auto batch, WithAddresses(std::move(rows_updated), with_addr, updated_at));
    replacements.push_back(std::move(batch));
  }
  if (!inserted_from.empty()) {
    QV_ASSIGN_OR_RETURN(auto rows_inserted, Gather(schema, source, inserted_from));
    QV_ASSIGN_OR_RETURN(auto batch, WithAddresses(std::move(rows_inserted), with_addr,
                                                  std::vector<uint64_t>(inserted_from.size(),
                                                                        table::kInsertedRow)));
    replacements.push_back(std::move(batch));
  }
  auto stream = arrow::MakeVectorStream(with_addr, std::move(replacements));
  table::UpdateRowsOptions rows_options;
  rows_options.deletions = deleted;
  rows_options.commit_unchanged = true;  // as Lance: a version whatever the merge found
  QV_ASSIGN_OR_RETURN(table::UpdateRowsResult written,
                      table::UpdateRows(*dataset, *stream, {}, options, rows_options));
  MergeInsertResult result;
  result.version = written.commit ? written.commit->version : dataset->version();
  result.updated = updated_from.size();
  result.inserted = inserted_from.size();
  result.deleted = deleted.size();
  return result;
}

}  // namespace

Result<MergeInsertResult> MergeInsert(const table::CommitTarget& target,
                                      std::shared_ptr<const arrow::Schema> schema,
                                      std::vector<arrow::RecordBatch> source,
                                      const MergeInsertSpec& spec,
                                      const table::CommitOptions& options) {
  int attempts = 0;
  auto merged = internal::OnLatestVersion(
      target, "merge insert",
      [&](std::shared_ptr<const table::Dataset> dataset) -> Result<MergeInsertResult> {
        ++attempts;
        return MergeOnce(dataset, schema, source, spec, options);
      },
      spec.retry_deadline);
  if (merged.ok()) merged->attempts = attempts;
  return merged;
}

}  // namespace quiver::query
