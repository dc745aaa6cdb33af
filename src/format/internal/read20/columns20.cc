#include "format/internal/read20/columns20.h"

#include <fmt/format.h>

#include "format/internal/logical_types.h"
#include "format/internal/read20/decode20.h"

namespace quiver::format::internal {

namespace {

using Encoding = lance::encodings::ArrayEncoding;

Result<uint32_t> TakeColumn(const SchemaField& field, const FileContainer& container,
                            uint32_t* next_column) {
  if (*next_column >= container.columns.size()) {
    return Status::Corruption(
        fmt::format("{}: field '{}' (id {}) needs column {}, the file has "
                    "{} columns",
                    container.what, field.name, field.id, *next_column, container.columns.size()));
  }
  return (*next_column)++;
}

// The first page's encoding, or nullopt for a column without pages.
Result<std::optional<Encoding>> FirstEncoding(const FileContainer& container, uint32_t column) {
  if (column >= container.columns.size() || container.columns[column].pages.empty()) {
    return std::optional<Encoding>();
  }
  QV_ASSIGN_OR_RETURN(Encoding e, PageEncoding20(container, column, 0));
  return std::optional<Encoding>(std::move(e));
}

// Every page of `column` must be `expected` (the header and offsets columns of structs and
// lists hold nothing else).
Status CheckPages(const FileContainer& container, uint32_t column, Encoding::ArrayEncodingCase want,
                  const char* what) {
  const auto& pages = container.columns[column].pages;
  for (size_t p = 0; p < pages.size(); ++p) {
    QV_ASSIGN_OR_RETURN(Encoding e, PageEncoding20(container, column, p));
    if (e.array_encoding_case() != want) {
      return Status::Corruption(fmt::format("{} column {} page {}: a {} column holds a '{}' page",
                                            container.what, column, p, what,
                                            DescribeEncoding20(e)));
    }
  }
  return Status::OK();
}

}  // namespace

Result<Encoding> PageEncoding20(const FileContainer& container, uint32_t column, size_t page) {
  Encoding e;
  const std::string& bytes = container.columns[column].pages[page].legacy_encoding;
  if (!e.ParseFromString(bytes)) {
    return Status::Corruption(fmt::format("{} column {} page {}: unreadable 2.0 page encoding",
                                          container.what, column, page));
  }
  return e;
}

Result<ColumnPlan20> PlanField20(const SchemaField& field, const FileContainer& container,
                                 uint32_t* next_column) {
  ColumnPlan20 plan;
  const std::string& type = field.logical_type;
  if (IsStructLogicalType(type)) {
    QV_ASSIGN_OR_RETURN(plan.column, TakeColumn(field, container, next_column));
    QV_ASSIGN_OR_RETURN(auto first, FirstEncoding(container, plan.column));
    if (first && first->has_packed_struct()) return plan;  // one column of packed rows
    QV_RETURN_IF_ERROR(
        CheckPages(container, plan.column, Encoding::kSimpleStruct, "struct header"));
    plan.kind = ColumnPlan20::Kind::kStruct;
    for (const SchemaField& member : field.children) {
      QV_ASSIGN_OR_RETURN(ColumnPlan20 child, PlanField20(member, container, next_column));
      plan.children.push_back(std::move(child));
    }
    return plan;
  }
  if (IsListLogicalType(type)) {
    if (field.children.size() != 1) {
      return Status::Corruption(fmt::format("{}: list field '{}' has {} children", container.what,
                                            field.name, field.children.size()));
    }
    plan.kind = ColumnPlan20::Kind::kList;
    QV_ASSIGN_OR_RETURN(plan.column, TakeColumn(field, container, next_column));
    QV_RETURN_IF_ERROR(CheckPages(container, plan.column, Encoding::kList, "list offsets"));
    QV_ASSIGN_OR_RETURN(ColumnPlan20 item, PlanField20(field.children[0], container, next_column));
    plan.children.push_back(std::move(item));
    return plan;
  }
  QV_ASSIGN_OR_RETURN(plan.column, TakeColumn(field, container, next_column));
  if (IsBinaryLogicalType(type)) {
    QV_ASSIGN_OR_RETURN(auto first, FirstEncoding(container, plan.column));
    if (first && first->has_list()) {
      // The early 2.0 form of strings: list<u8>, offsets then bytes.
      QV_RETURN_IF_ERROR(CheckPages(container, plan.column, Encoding::kList, "string offsets"));
      plan.kind = ColumnPlan20::Kind::kBinaryList;
      ColumnPlan20 bytes;
      QV_ASSIGN_OR_RETURN(bytes.column, TakeColumn(field, container, next_column));
      plan.children.push_back(std::move(bytes));
    }
  }
  return plan;
}

}  // namespace quiver::format::internal
