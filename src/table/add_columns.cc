// AddColumns (add_columns.h).
#include "table/add_columns.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "format/arrow_schema.h"
#include "format/lance_proto.h"
#include "table/fragment_rows.h"
#include "table/scan.h"
#include "table/write.h"

namespace quiver::table {

namespace {

// `schema`'s fields with every id (and parent id) moved up by `by`.
void ShiftIds(std::vector<format::SchemaField>& fields, int32_t by) {
  for (format::SchemaField& f : fields) {
    f.id += by;
    if (f.parent_id >= 0) f.parent_id += by;
    ShiftIds(f.children, by);
  }
}

struct Written {
  std::vector<std::unique_ptr<ColumnGroupWriter>> files;
  void Abort() {
    for (auto& f : files) f->Abort();
  }
};

// Both: `replace` says whether the columns take the place of existing ones of their names.
Result<CommitResult> WriteColumnGroup(const Dataset& read, const std::vector<arrow::Field>& columns,
                                      bool replace, const ColumnCompute& compute,
                                      const CommitOptions& options) {
  if (columns.empty()) return Status::InvalidInput("no column to write");
  std::set<std::string> names;
  for (const auto& f : read.schema().fields) names.insert(f.name);
  std::set<std::string> seen;
  for (const arrow::Field& c : columns) {
    if (c.name.empty()) return Status::InvalidInput("a column needs a name");
    if (!seen.insert(c.name).second) {
      return Status::InvalidInput(fmt::format("column '{}' is named twice", c.name));
    }
    if (!replace && names.count(c.name) != 0) {
      return Status::InvalidInput(fmt::format("column '{}' already exists", c.name));
    }
    if (replace) {
      auto old = std::find_if(read.schema().fields.begin(), read.schema().fields.end(),
                              [&c](const format::SchemaField& f) { return f.name == c.name; });
      if (old == read.schema().fields.end()) {
        return Status(StatusCode::kTableColumnNotFound,
                      fmt::format("column '{}' is not in the table", c.name));
      }
      if (!old->children.empty()) {
        return Status::InvalidInput(fmt::format(
            "column '{}' has nested fields; only a scalar column's type can change", c.name));
      }
    }
  }
  // The new fields, with ids after the table's largest.
  arrow::Schema added_arrow;
  added_arrow.fields = columns;
  QV_ASSIGN_OR_RETURN(format::Schema added, format::FromArrowSchema(added_arrow));
  ShiftIds(added.fields, read.schema().max_field_id + 1);

  // Every physical row of every fragment, fragment by fragment, with its address.
  ScanOptions scan;
  scan.with_row_addr = true;
  scan.with_deleted_rows = true;
  std::shared_ptr<const Dataset> view(std::shared_ptr<const Dataset>(), &read);  // not owned
  QV_ASSIGN_OR_RETURN(auto rows, Scan(view, scan));
  std::map<uint64_t, lance::table::DataFile> files;  // by fragment id
  Written written;
  auto fail = [&](Status s) {
    written.Abort();
    return s;
  };
  ColumnGroupWriter* current = nullptr;
  uint64_t current_fragment = 0;
  auto finish_current = [&]() -> Status {
    if (current == nullptr) return Status::OK();
    QV_ASSIGN_OR_RETURN(lance::table::DataFile file, current->Finish());
    files[current_fragment] = std::move(file);
    current = nullptr;
    return Status::OK();
  };
  auto added_schema = std::make_shared<arrow::Schema>(added_arrow);
  while (true) {
    auto batch = rows->Next();
    if (!batch.ok()) return fail(batch.status());
    if (!*batch) break;
    const arrow::RecordBatch& b = **batch;
    const uint64_t* addrs = arrow::Values<uint64_t>(*b.columns.back());
    // A batch may hold rows of more than one fragment: cut it where the fragment changes.
    int64_t start = 0;
    while (start < b.length) {
      const uint64_t fragment = RowAddress::Fragment(addrs[start]);
      int64_t end = start + 1;
      while (end < b.length && RowAddress::Fragment(addrs[end]) == fragment) ++end;
      arrow::RecordBatch part = b;
      if (start != 0 || end != b.length) {
        part.length = end - start;
        for (auto& c : part.columns) c = arrow::Slice(c, start, end - start);
      }
      auto values = compute(part);
      if (!values.ok()) return fail(values.status());
      if (current == nullptr || fragment != current_fragment) {
        if (Status s = finish_current(); !s.ok()) return fail(s);
        auto opened = ColumnGroupWriter::Open(read, added);
        if (!opened.ok()) return fail(opened.status());
        written.files.push_back(std::move(*opened));
        current = written.files.back().get();
        current_fragment = fragment;
      }
      arrow::RecordBatch out;
      out.schema = added_schema;
      out.length = part.length;
      out.columns = std::move(*values);
      if (Status s = current->Write(out); !s.ok()) return fail(s);
      start = end;
    }
  }
  if (Status s = finish_current(); !s.ok()) return fail(s);

  lance::table::Transaction txn;
  txn.set_read_version(read.version());
  auto* merge = txn.mutable_merge();
  for (const auto& fragment : read.manifest().fragments()) {
    lance::table::DataFragment f = fragment;
    auto it = files.find(f.id());
    if (it != files.end()) {
      *f.add_files() = it->second;
    } else if (f.physical_rows() > 0) {
      return fail(Status::Internal(fmt::format("add columns: fragment {} was not read", f.id())));
    }
    *merge->add_fragments() = std::move(f);
  }
  if (!replace) {
    *merge->mutable_schema() = read.manifest().fields();
    for (const auto& f : added.fields) AppendLanceFields(f, merge->mutable_schema());
  } else {
    // Each rewritten field where the old one was (a scalar: one entry of the flat list).
    for (const auto& field : read.manifest().fields()) {
      auto by = std::find_if(added.fields.begin(), added.fields.end(),
                             [&field](const format::SchemaField& f) {
                               return field.parent_id() < 0 && f.name == field.name();
                             });
      if (by == added.fields.end()) {
        *merge->add_schema() = field;
      } else {
        AppendLanceFields(*by, merge->mutable_schema());
      }
    }
  }
  *merge->mutable_schema_metadata() = read.manifest().schema_metadata();
  // Lance's rule: nullability is preserved unless a required field is introduced.
  bool required = false;
  for (const arrow::Field& c : columns) required |= !c.nullable;
  merge->set_preserves_nullability(!required);
  bool outcome_unknown = false;
  auto committed = CommitTransaction(*read.store(), std::move(txn), options, &outcome_unknown);
  if (!committed.ok()) {
    if (!outcome_unknown) written.Abort();
    return committed.status();
  }
  return committed;
}

}  // namespace

Result<CommitResult> AddColumns(const Dataset& read, const std::vector<arrow::Field>& columns,
                                const ColumnCompute& compute, const CommitOptions& options) {
  return WriteColumnGroup(read, columns, /*replace=*/false, compute, options);
}

Result<CommitResult> RewriteColumns(const Dataset& read, const std::vector<arrow::Field>& columns,
                                    const ColumnCompute& compute, const CommitOptions& options) {
  return WriteColumnGroup(read, columns, /*replace=*/true, compute, options);
}

}  // namespace quiver::table
