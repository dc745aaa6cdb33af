// The operation table's own invariants (operation_table.h): every spec operation once, as the
// spec declares it; every row with a route of its own, a body kind, an auth and a door that fit.
#include "server/operation_table.h"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace quiver::server {
namespace {

using catalog::authz::Permission;

// What docs/reference/lance-namespace/spec.yaml says of one operation.
struct SpecOperation {
  std::string method;  // "GET", "POST"
  std::string path;
  int success_status = 0;   // its one 2xx response
  bool arrow_body = false;  // its request body is application/vnd.apache.arrow.stream
  int seen = 0;
};

// Reads the `paths:` section line by line (the file is OpenAPI 3.1 with two-space indents).
std::map<std::string, SpecOperation> ReadSpec() {
  std::ifstream in(QUIVER_SPEC_YAML);
  EXPECT_TRUE(in) << QUIVER_SPEC_YAML;
  std::map<std::string, SpecOperation> out;
  static const std::regex path_line(R"(^  (/\S*):\s*$)");
  static const std::regex method_line(R"(^    (get|post|put|delete|patch):\s*$)");
  static const std::regex section_line(R"(^      (\w+):.*$)");
  static const std::regex operation_id(R"(^      operationId:\s*(\w+)\s*$)");
  static const std::regex response_code(R"(^        ['"]?(2\d\d)['"]?:\s*$)");
  std::string line, path, method, section;
  SpecOperation* current = nullptr;
  bool in_paths = false;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line == "paths:") {
      in_paths = true;
      continue;
    }
    if (!in_paths) continue;
    if (!line.empty() && line[0] != ' ' && line[0] != '#') break;  // the next top-level key
    if (std::regex_match(line, m, path_line)) {
      path = m[1];
      current = nullptr;
    } else if (std::regex_match(line, m, method_line)) {
      method = m[1];
      for (char& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      current = nullptr;
    } else if (std::regex_match(line, m, operation_id)) {
      current = &out[m[1]];
      current->method = method;
      current->path = path;
      ++current->seen;
    } else if (std::regex_match(line, m, section_line)) {
      section = m[1];
    } else if (current != nullptr && section == "requestBody" &&
               line.find("application/vnd.apache.arrow.stream:") != std::string::npos) {
      current->arrow_body = true;
    } else if (current != nullptr && section == "responses" &&
               std::regex_match(line, m, response_code)) {
      EXPECT_EQ(current->success_status, 0) << "two 2xx responses at " << path;
      current->success_status = std::stoi(m[1]);
    }
  }
  return out;
}

TEST(OperationTableTest, EverySpecOperationOnceAsTheSpecDeclaresIt) {
  std::map<std::string, SpecOperation> spec = ReadSpec();
  ASSERT_EQ(spec.size(), 54u);
  std::set<std::string> in_table;
  for (const Operation& op : Operations()) {
    if (!op.spec) continue;
    in_table.insert(std::string(op.name));
    auto found = spec.find(std::string(op.name));
    ASSERT_NE(found, spec.end()) << op.name << " is not an operation of the spec";
    const SpecOperation& s = found->second;
    EXPECT_EQ(s.seen, 1) << op.name;
    EXPECT_EQ(s.method, op.method) << op.name;
    EXPECT_EQ(s.path, op.pattern) << op.name;
    EXPECT_EQ(s.success_status, op.success_status) << op.name;
    EXPECT_EQ(s.arrow_body, IsArrowBody(op.body)) << op.name;
  }
  EXPECT_EQ(in_table.size(), 54u);
  for (const auto& [name, s] : spec) EXPECT_EQ(in_table.count(name), 1u) << name << " missing";
}

TEST(OperationTableTest, NamesAndRoutesAreUnique) {
  std::set<std::string_view> names;
  std::set<std::pair<std::string_view, std::string_view>> routes;
  for (const Operation& op : Operations()) {
    EXPECT_TRUE(names.insert(op.name).second) << op.name;
    EXPECT_TRUE(routes.insert({op.method, op.pattern}).second) << op.name;
    EXPECT_EQ(FindOperation(op.name), &op) << op.name;
    EXPECT_TRUE(op.method == "GET" || op.method == "POST") << op.name;
    EXPECT_EQ(op.pattern.substr(0, 1), "/") << op.name;
    // GET as well is a deviation of POST routes.
    if (op.also_get) {
      EXPECT_EQ(op.method, "POST") << op.name;
    }
  }
  EXPECT_EQ(FindOperation("NoSuchOperation"), nullptr);
}

// Every row says who may call it and how it is authorized, and the two fit together.
TEST(OperationTableTest, EveryRowHasAPolicyThatFits) {
  int doors = 0;
  for (const Operation& op : Operations()) {
    SCOPED_TRACE(std::string(op.name));
    if (!op.spec && !op.remote) {
      // quiver's own operations are not scoped to a project by the pipeline: their handlers
      // check (in the door order).
      EXPECT_EQ(op.door, Door::kNone);
      EXPECT_NE(op.handler, nullptr);
      continue;
    }
    // The remote protocol's routes the spec lacks go through doors like the spec's, on a table.
    if (op.remote) {
      EXPECT_FALSE(op.spec);
      EXPECT_EQ(op.target, Target::kTable);
      EXPECT_NE(op.door, Door::kNone);
    }
    EXPECT_EQ(op.auth, Auth::kAuthenticated);  // the spec's operations are for callers
    switch (op.door) {
      case Door::kRead:
        EXPECT_TRUE(op.permission == Permission::kObserve ||
                    op.permission == Permission::kReadData);
        if (op.target == Target::kProject) {
          EXPECT_EQ(op.name, "ListAllTables") << "the one read of a whole project";
        }
        break;
      case Door::kDestructive:
        EXPECT_TRUE(op.permission == Permission::kDrop || op.permission == Permission::kWriteData);
        break;
      case Door::kCreate:
        EXPECT_TRUE(op.target == Target::kNamespace ? op.permission == Permission::kCreateNamespace
                                                    : op.permission == Permission::kCreateTable);
        break;
      case Door::kNone:
        // Only the multi-table operations (their tables are in the body), all unsupported.
        EXPECT_EQ(op.target, Target::kProject);
        EXPECT_EQ(op.handler, nullptr);
        break;
    }
    doors += op.spec && op.door != Door::kNone;
  }
  EXPECT_EQ(doors, 50);
}

// The pipeline's special cases are flags of their rows: open operations read nothing and are
// quiver's own GETs; server-admin ones likewise.
TEST(OperationTableTest, OpenAndAdminOperationsAreOursAndReadNoBody) {
  std::set<std::string_view> open, admin, bodiless;
  for (const Operation& op : Operations()) {
    if (op.auth == Auth::kOpen) open.insert(op.name);
    if (op.auth == Auth::kServerAdmin) admin.insert(op.name);
    if (op.body == BodyKind::kNone) bodiless.insert(op.name);
    if (op.auth != Auth::kAuthenticated) {
      EXPECT_FALSE(op.spec) << op.name;
      EXPECT_EQ(op.method, "GET") << op.name;
      EXPECT_NE(op.handler, nullptr) << op.name;
    }
    if (IsArrowBody(op.body)) {
      EXPECT_TRUE(op.spec && op.method == "POST") << op.name;
    }
  }
  EXPECT_EQ(open, std::set<std::string_view>{"Healthz"});
  EXPECT_EQ(admin, std::set<std::string_view>{"Metrics"});
  EXPECT_EQ(bodiless, open);  // an open operation is answered before its body is looked at
}

}  // namespace
}  // namespace quiver::server
