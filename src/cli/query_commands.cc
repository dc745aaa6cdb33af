#include "cli/query_commands.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/rows_output.h"
#include "common/json.h"
#include "common/strings.h"
#include "query/add_columns_sql.h"
#include "query/delete_where.h"
#include "query/merge_insert.h"
#include "query/query.h"
#include "query/update_where.h"

namespace quiver::cli {
namespace {

// `--branch`: "" and "main" are main.
std::optional<std::string> BranchOption(const std::string& branch) {
  if (branch.empty() || branch == "main") return std::nullopt;
  return branch;
}

struct QueryArgs {
  std::string uri;
  std::string filter;
  std::string columns;
  std::vector<std::string> select;  // alias=SQL
  std::optional<uint64_t> limit;
  uint64_t offset = 0;
  std::optional<uint64_t> version;
  std::string branch;  // empty = main
  std::vector<std::string> order_by;
  std::string nearest;  // JSON: [x, ...] or [[x, ...], ...]
  std::string vector_column;
  uint64_t k = 10;
  std::string distance = "l2";
  std::optional<double> lower_bound;
  std::optional<double> upper_bound;
  bool postfilter = false;
  bool json = false;
  bool with_row_id = false;
  bool with_row_addr = false;
  bool explain = false;
  bool analyze = false;
};

// "col", "col desc", "col asc nulls first": a column then optional direction and null order.
Result<query::SortKey> ParseSortKey(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text + " ") {
    if (c == ' ') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (words.empty()) return Status::InvalidInput("--order-by: an empty key");
  query::SortKey key;
  key.column = words[0];
  size_t i = 1;
  if (i < words.size() && (AsciiLower(words[i]) == "asc" || AsciiLower(words[i]) == "desc")) {
    key.ascending = AsciiLower(words[i]) == "asc";
    ++i;
  }
  if (i < words.size() && AsciiLower(words[i]) == "nulls") {
    if (i + 1 >= words.size()) return Status::InvalidInput("--order-by: NULLS FIRST or NULLS LAST");
    const std::string where = AsciiLower(words[i + 1]);
    if (where != "first" && where != "last") {
      return Status::InvalidInput("--order-by: NULLS FIRST or NULLS LAST");
    }
    key.nulls_first = where == "first";
    i += 2;
  }
  if (i != words.size()) {
    return Status::InvalidInput(
        fmt::format("--order-by '{}': expected COLUMN [ASC|DESC] [NULLS FIRST|NULLS LAST]", text));
  }
  return key;
}

Result<std::vector<std::vector<double>>> ParseVectors(const std::string& text) {
  auto bad = [] {
    return Status::InvalidInput("--nearest: a JSON array of numbers, or an array of such arrays");
  };
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return bad();
  const nlohmann::json& j = *parsed;
  if (!j.is_array() || j.empty()) return bad();
  std::vector<std::vector<double>> out;
  auto one = [&](const nlohmann::json& a) -> Status {
    if (!a.is_array() || a.empty()) return bad();
    std::vector<double> v;
    for (const auto& x : a) {
      if (!x.is_number()) return bad();
      v.push_back(x.get<double>());
    }
    out.push_back(std::move(v));
    return Status::OK();
  };
  if (j[0].is_array()) {
    for (const auto& a : j) QV_RETURN_IF_ERROR(one(a));
  } else {
    QV_RETURN_IF_ERROR(one(j));
  }
  return out;
}

Result<query::QueryRequest> MakeRequest(const QueryArgs& args) {
  query::QueryRequest r;
  r.filter = args.filter;
  r.columns = SplitComma(args.columns);
  for (const std::string& s : args.select) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidInput(fmt::format("--select '{}': expected NAME=SQL", s));
    }
    r.expressions.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  r.offset = args.offset;
  r.limit = args.limit;
  r.with_row_id = args.with_row_id;
  r.with_row_addr = args.with_row_addr;
  for (const std::string& k : args.order_by) {
    QV_ASSIGN_OR_RETURN(auto key, ParseSortKey(k));
    r.order_by.push_back(std::move(key));
  }
  if (!args.nearest.empty()) {
    query::VectorSearch nn;
    QV_ASSIGN_OR_RETURN(nn.vectors, ParseVectors(args.nearest));
    nn.column = args.vector_column;
    nn.k = args.limit ? *args.limit : args.k;
    QV_ASSIGN_OR_RETURN(nn.distance, query::ParseDistanceType(args.distance));
    nn.lower_bound = args.lower_bound;
    nn.upper_bound = args.upper_bound;
    nn.prefilter = !args.postfilter;
    r.nearest = std::move(nn);
    r.limit.reset();
  } else if (!args.vector_column.empty() || args.postfilter || args.lower_bound ||
             args.upper_bound) {
    return Status::InvalidInput(
        "--column, --postfilter, --lower-bound and --upper-bound need --nearest");
  }
  return r;
}

int RunQuery(const QueryArgs& args) {
  auto request = MakeRequest(args);
  if (!request.ok()) return Fail(request.status());
  auto dataset = OpenVersion(args.uri, args.version, args.branch);
  if (!dataset.ok()) return Fail(dataset.status());
  if (args.explain || args.analyze) {
    auto plan = args.analyze ? query::AnalyzeQuery(*dataset, *request)
                             : query::ExplainQuery(*dataset, *request, /*verbose=*/true);
    if (!plan.ok()) return Fail(plan.status());
    std::cout << *plan;
    return 0;
  }
  auto stream = query::RunQuery(*dataset, *request);
  if (!stream.ok()) return Fail(stream.status());
  return PrintStream(**stream, args.json);
}

struct CountArgs {
  std::string uri;
  std::string filter;
  std::optional<uint64_t> version;
  std::string branch;
};

int RunCount(const CountArgs& args) {
  auto dataset = OpenVersion(args.uri, args.version, args.branch);
  if (!dataset.ok()) return Fail(dataset.status());
  auto count = query::CountRows(*dataset, args.filter);
  if (!count.ok()) return Fail(count.status());
  std::cout << *count << "\n";
  return 0;
}

struct DeleteArgs {
  std::string uri;
  std::string where;
  std::string branch;
};

int RunDelete(const DeleteArgs& args) {
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  const std::optional<std::string> branch = BranchOption(args.branch);
  auto deleted = query::DeleteWhere(table::CommitTarget{*root, branch}, args.where);
  if (!deleted.ok()) return Fail(deleted.status());
  if (deleted->rows_deleted == 0) {
    std::cout << "no row matches; nothing committed (version " << deleted->version << ")\n";
  } else {
    std::cout << "deleted " << deleted->rows_deleted << " rows; committed version "
              << deleted->version << "\n";
  }
  return 0;
}

struct UpdateArgs {
  std::string uri;
  std::vector<std::string> set;  // COLUMN=SQL
  std::string where;
  std::string branch;
};

// `NAME=SQL` options as (name, SQL) pairs; InvalidInput naming `option` for one without a name.
Result<std::vector<std::pair<std::string, std::string>>> Assignments(
    const std::vector<std::string>& values, std::string_view option) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& s : values) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidInput(fmt::format("{} '{}' is not NAME=SQL", option, s));
    }
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

int RunUpdate(const UpdateArgs& args) {
  auto updates = Assignments(args.set, "--set");
  if (!updates.ok()) return UsageError(updates.status());
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  const std::optional<std::string> branch = BranchOption(args.branch);
  auto updated = query::UpdateWhere(table::CommitTarget{*root, branch}, *updates, args.where);
  if (!updated.ok()) return Fail(updated.status());
  if (updated->rows_updated == 0) {
    std::cout << "no row matches; nothing committed (version " << updated->version << ")\n";
  } else {
    std::cout << "updated " << updated->rows_updated << " rows; committed version "
              << updated->version << "\n";
  }
  return 0;
}

struct AddColumnsArgs {
  std::string uri;
  std::vector<std::string> columns;  // NAME=SQL
  std::string branch;
};

int RunAddColumns(const AddColumnsArgs& args) {
  auto parsed = Assignments(args.columns, "--column");
  if (!parsed.ok()) return UsageError(parsed.status());
  const auto& columns = *parsed;
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  const std::optional<std::string> branch = BranchOption(args.branch);
  auto version = query::AddColumnsSql(table::CommitTarget{*root, branch}, columns);
  if (!version.ok()) return Fail(version.status());
  std::cout << "added " << columns.size() << " columns; committed version " << *version << "\n";
  return 0;
}

struct MergeArgs {
  std::string uri;
  std::string from;
  std::vector<std::string> on;
  bool update_all = false;
  std::string update_if;
  bool insert_all = false;
  bool delete_unmatched = false;
  std::string delete_if;
  std::string branch;
};

int RunMerge(const MergeArgs& args) {
  query::MergeInsertSpec spec;
  spec.on = args.on;
  spec.when_matched_update_all = args.update_all || !args.update_if.empty();
  spec.when_matched_update_all_filt = args.update_if;
  spec.when_not_matched_insert_all = args.insert_all;
  spec.when_not_matched_by_source_delete = args.delete_unmatched || !args.delete_if.empty();
  spec.when_not_matched_by_source_delete_filt = args.delete_if;
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  auto input = OpenIpcInput(args.from);
  if (!input.ok()) return Fail(input.status());
  std::vector<arrow::RecordBatch> source;
  while (true) {
    auto batch = (*input)->Next();
    if (!batch.ok()) return Fail(batch.status());
    if (!*batch) break;
    source.push_back(std::move(**batch));
  }
  const std::optional<std::string> branch = BranchOption(args.branch);
  auto merged = query::MergeInsert(table::CommitTarget{*root, branch}, (*input)->schema(),
                                   std::move(source), spec);
  if (!merged.ok()) return Fail(merged.status());
  std::cout << fmt::format("inserted {}, updated {}, deleted {} rows; committed version {}\n",
                           merged->inserted, merged->updated, merged->deleted, merged->version);
  return 0;
}

}  // namespace

void AddQueryCommands(CLI::App& table, int* exit_code) {
  auto a = std::make_shared<QueryArgs>();
  CLI::App* q = table.add_subcommand(
      "query",
      "Query a dataset version as LanceDB does: filter, select, order, offset/limit, and exact "
      "vector search (--nearest)");
  q->add_option("uri", a->uri, "dataset root")->required();
  q->add_option("--filter", a->filter,
                "SQL predicate in LanceDB's (DataFusion's) dialect, e.g. \"id > 5 AND name LIKE "
                "'a%'\"; rows where it is TRUE");
  q->add_option("--columns", a->columns,
                "columns to show, comma-separated (also _rowid, _rowaddr, _distance)");
  q->add_option("--select", a->select,
                "NAME=SQL: an output column computed by a SQL expression (repeatable; instead of "
                "--columns)");
  q->add_option("--limit", a->limit,
                "at most this many rows (after the filter); with --nearest, the k nearest");
  q->add_option("--offset", a->offset, "skip this many result rows first");
  q->add_option("--order-by", a->order_by,
                "\"COLUMN [ASC|DESC] [NULLS FIRST|NULLS LAST]\" (repeatable; nulls last by "
                "default)");
  q->add_option("--version", a->version, "a version number (default: the latest)");
  q->add_option("--branch", a->branch,
                "a branch (default: main); --version then numbers its versions");
  q->add_option("--nearest", a->nearest,
                "exact vector search: a JSON query vector [x, ...], or several [[...], [...]] "
                "(each gets its own k nearest and a query_index column)");
  q->add_option("--column", a->vector_column,
                "the vector column (default: the only vector column of the query's dimension)");
  q->add_option("--k", a->k, "nearest rows per query vector (default 10; --limit also sets it)");
  q->add_option("--distance", a->distance, "l2 (squared; default), cosine, dot or hamming");
  q->add_option("--lower-bound", a->lower_bound, "keep rows with _distance >= this");
  q->add_option("--upper-bound", a->upper_bound, "keep rows with _distance < this");
  q->add_flag("--postfilter", a->postfilter,
              "find the k nearest first, then filter (default: filter, then the k nearest)");
  q->add_flag("--json", a->json, "JSON Lines, as `table head --json`");
  q->add_flag("--with-row-id", a->with_row_id, "append `_rowid`");
  q->add_flag("--with-row-addr", a->with_row_addr, "append `_rowaddr`");
  q->add_flag("--explain", a->explain, "print the plan instead of running it");
  q->add_flag("--analyze", a->analyze,
              "run the query and print the plan with rows, time and store requests per step");
  q->callback([a, exit_code] { *exit_code = RunQuery(*a); });

  auto c = std::make_shared<CountArgs>();
  CLI::App* count = table.add_subcommand(
      "count", "Print how many rows of a dataset version match a SQL filter (all rows without)");
  count->add_option("uri", c->uri, "dataset root")->required();
  count->add_option("--filter", c->filter, "SQL predicate (as `table query --filter`)");
  count->add_option("--version", c->version, "a version number (default: the latest)");
  count->add_option("--branch", c->branch, "a branch (default: main)");
  count->callback([c, exit_code] { *exit_code = RunCount(*c); });

  auto d = std::make_shared<DeleteArgs>();
  CLI::App* del = table.add_subcommand(
      "delete",
      "Delete the rows where a SQL predicate is TRUE (one Delete commit, deletion files as Lance "
      "writes them)");
  del->add_option("uri", d->uri, "dataset root")->required();
  del->add_option("--where", d->where,
                  "SQL predicate (as `table query --filter`); \"true\" deletes every row")
      ->required();
  del->add_option("--branch", d->branch, "a branch (default: main)");
  del->callback([d, exit_code] { *exit_code = RunDelete(*d); });

  auto u = std::make_shared<UpdateArgs>();
  CLI::App* update = table.add_subcommand(
      "update",
      "Set columns to SQL expressions of the old row where a predicate holds (one Update commit: "
      "the rows rewritten into new fragments, as Lance does)");
  update->add_option("uri", u->uri, "dataset root")->required();
  update->add_option("--set", u->set, "COLUMN=SQL, e.g. --set 'price=price * 1.1' (repeatable)")
      ->required();
  update->add_option("--where", u->where, "SQL predicate (default: every row)");
  update->add_option("--branch", u->branch, "a branch (default: main)");
  update->callback([u, exit_code] { *exit_code = RunUpdate(*u); });

  auto ac = std::make_shared<AddColumnsArgs>();
  CLI::App* add_columns = table.add_subcommand(
      "add-columns",
      "Add columns computed by SQL expressions of each row (a new data file per fragment, one "
      "Merge commit, as Lance's add_columns)");
  add_columns->add_option("uri", ac->uri, "dataset root")->required();
  add_columns->add_option("--column", ac->columns, "NAME=SQL, e.g. --column 'total=price * qty'")
      ->required();
  add_columns->add_option("--branch", ac->branch, "a branch (default: main)");
  add_columns->callback([ac, exit_code] { *exit_code = RunAddColumns(*ac); });

  auto m = std::make_shared<MergeArgs>();
  CLI::App* merge = table.add_subcommand(
      "merge",
      "Merge the rows of an Arrow IPC stream into the table on key columns, as LanceDB's "
      "mergeInsert does (one Update commit)");
  merge->add_option("uri", m->uri, "dataset root")->required();
  merge->add_option("--from", m->from, "Arrow IPC stream file ('-' = stdin)")->required();
  merge->add_option("--on", m->on, "key column (repeatable)")->required();
  merge->add_flag("--update-all", m->update_all, "replace a matched row by its source row");
  merge->add_option("--update-if", m->update_if,
                    "...only where this SQL over source.<col> and target.<col> is TRUE");
  merge->add_flag("--insert-all", m->insert_all, "insert the source rows that match nothing");
  merge->add_flag("--delete-unmatched", m->delete_unmatched,
                  "delete the table's rows that no source row matches");
  merge->add_option("--delete-if", m->delete_if, "...only where this SQL predicate is TRUE");
  merge->add_option("--branch", m->branch, "a branch (default: main)");
  merge->callback([m, exit_code] { *exit_code = RunMerge(*m); });
}

}  // namespace quiver::cli
