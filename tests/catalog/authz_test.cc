// Tests of the authorization model (parsing, formatting, validation) and of AuthzIndex
// (inheritance, the descendant rule for observe, listings, removal, scale, concurrency).
#include <algorithm>
#include <atomic>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "catalog/authz/index.h"
#include "catalog/authz/model.h"
#include "catalog/object_id.h"

namespace quiver::catalog::authz {

// Readable failure messages.
void PrintTo(const ObjectRef& ref, std::ostream* os) { *os << FormatObjectRef(ref); }
void PrintTo(const Grant& grant, std::ostream* os) {
  *os << grant.subject << "#" << RelationName(grant.relation);
}
void PrintTo(const Tuple& tuple, std::ostream* os) { *os << FormatTuple(tuple); }

namespace {

using Names = std::vector<std::string>;

const std::string kAlice = "user:alice";
const std::string kBob = "user:bob";

constexpr Permission kAllPermissions[] = {Permission::kObserve,         Permission::kReadData,
                                          Permission::kWriteData,       Permission::kCreateTable,
                                          Permission::kCreateNamespace, Permission::kDrop,
                                          Permission::kGrant,           Permission::kAdminister,
                                          Permission::kCreateWarehouse, Permission::kCreateProject};

ObjectRef MustParse(std::string_view text) {
  Result<ObjectRef> ref = ParseObjectRef(text);
  EXPECT_TRUE(ref.ok()) << text << ": " << ref.status().ToString();
  return ref.ValueOr(ObjectRef::Server());
}

// ---------------------------------------------------------------------------------------------
// Model

TEST(AuthzModelTest, ObjectRefsRoundTrip) {
  struct Case {
    std::string text;
    ObjectRef ref;
  };
  std::vector<Case> cases = {
      {"server:quiver", ObjectRef::Server()},
      {"project:p", ObjectRef::Project("p")},
      {"warehouse:p/w", ObjectRef::Warehouse("p", "w")},
      {"namespace:p/a", ObjectRef::Namespace({"p", "a"})},
      {"namespace:p/a/b/c", ObjectRef::Namespace({"p", "a", "b", "c"})},
      {"table:p/t", ObjectRef::Table({"p", "t"})},
      {"table:p/a/b/t", ObjectRef::Table({"p", "a", "b", "t"})},
      {"table:p/with space/h#sh@at:colon/\xc3\xa9",
       ObjectRef::Table({"p", "with space", "h#sh@at:colon", "\xc3\xa9"})},
  };
  for (const Case& c : cases) {
    Result<ObjectRef> parsed = ParseObjectRef(c.text);
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, c.ref) << c.text;
    EXPECT_EQ(FormatObjectRef(c.ref), c.text);
    EXPECT_TRUE(ValidateObjectRef(c.ref).ok()) << c.text;
  }
  // The deepest allowed namespace and table: kMaxIdDepth names after the project.
  ObjectId deep(kMaxIdDepth, "n");
  std::string deep_text = "p/" + JoinId(deep, "/");
  EXPECT_TRUE(ParseObjectRef("namespace:" + deep_text).ok());
  EXPECT_TRUE(ParseObjectRef("table:" + deep_text).ok());
}

TEST(AuthzModelTest, ObjectRefRejections) {
  std::string too_deep = "p/" + JoinId(ObjectId(kMaxIdDepth + 1, "n"), "/");
  for (std::string bad : {
           std::string(""),
           std::string("project"),           // no ':'
           std::string("database:p"),        // unknown type
           std::string("Project:p"),         // types are lowercase
           std::string("server:"),           // the server is "server:quiver"
           std::string("server:other"),      //
           std::string("project:"),          // empty name
           std::string("project:p/q"),       // too long for a project
           std::string("warehouse:p"),       // too short
           std::string("warehouse:p/w/x"),   // too long
           std::string("namespace:p"),       // a namespace needs a name after the project
           std::string("table:p"),           // so does a table
           std::string("namespace:p//a"),    // empty part
           std::string("namespace:/a"),      // empty project
           std::string("namespace:p/a/"),    // trailing '/'
           std::string("table:p/a/.."),      // reserved name
           std::string("table:p/a/."),       //
           std::string("table:p/a\\b"),      // backslash
           std::string("table:p/a\tb"),      // control character
           std::string("table:p/a\0b", 11),  // NUL
           std::string("table:p/\xff"),      // not UTF-8
           "table:p/" + std::string(kMaxNameBytes + 1, 'x'),
           "namespace:" + too_deep,
           "table:" + too_deep,
       }) {
    Result<ObjectRef> ref = ParseObjectRef(bad);
    EXPECT_FALSE(ref.ok()) << bad;
    EXPECT_TRUE(ref.status().IsInvalidInput()) << bad;
  }
  EXPECT_FALSE(ValidateObjectRef({ObjectType::kServer, {"x"}}).ok());
  EXPECT_FALSE(ValidateObjectRef({ObjectType::kProject, {}}).ok());
  EXPECT_FALSE(ValidateObjectRef({ObjectType::kTable, {"p", ""}}).ok());
}

TEST(AuthzModelTest, RefsSortByPathThenType) {
  std::vector<ObjectRef> sorted = {
      ObjectRef::Server(),
      ObjectRef::Project("p"),
      ObjectRef::Warehouse("p", "a"),
      ObjectRef::Namespace({"p", "a"}),
      ObjectRef::Table({"p", "a"}),
      ObjectRef::Table({"p", "a", "t"}),
      ObjectRef::Namespace({"p", "b"}),
      ObjectRef::Project("q"),
  };
  for (size_t i = 0; i + 1 < sorted.size(); ++i) {
    EXPECT_TRUE(sorted[i] < sorted[i + 1]) << i;
    EXPECT_FALSE(sorted[i + 1] < sorted[i]) << i;
  }
}

TEST(AuthzModelTest, ParentsFollowTheHierarchy) {
  ObjectRef ref = ObjectRef::Table({"p", "a", "b", "t"});
  std::vector<std::string> chain = {FormatObjectRef(ref)};
  while (ToParent(&ref, IsTopLevelNamespace(ref) ? "w" : "")) {
    chain.push_back(FormatObjectRef(ref));
  }
  EXPECT_EQ(chain, (Names{"table:p/a/b/t", "namespace:p/a/b", "namespace:p/a", "warehouse:p/w",
                          "project:p", "server:quiver"}));
  // Without a warehouse a top-level namespace's parent is the project; a root table's too.
  ref = ObjectRef::Namespace({"p", "a"});
  ASSERT_TRUE(ToParent(&ref, ""));
  EXPECT_EQ(ref, ObjectRef::Project("p"));
  ref = ObjectRef::Table({"p", "t"});
  ASSERT_TRUE(ToParent(&ref, "ignored"));
  EXPECT_EQ(ref, ObjectRef::Project("p"));
  ref = ObjectRef::Server();
  EXPECT_FALSE(ToParent(&ref, ""));
}

TEST(AuthzModelTest, TuplesRoundTripAsTextAndJson) {
  for (std::string text : {
           "user:alice#admin@server:quiver", "user:alice#admin@project:p",
           "user:alice#writer@project:p", "user:*#reader@project:p",
           "user:alice@example.com#owner@warehouse:p/w", "user:bob#reader@namespace:p/a/b",
           "user:bob#writer@table:p/t",
           "user:b@b#owner@table:p/a#reader@table:x/y",  // '#'/'@' in names split correctly
       }) {
    Result<Tuple> tuple = ParseTuple(text);
    ASSERT_TRUE(tuple.ok()) << text << ": " << tuple.status().ToString();
    EXPECT_EQ(FormatTuple(*tuple), text);
    nlohmann::json json = TupleToJson(*tuple);
    EXPECT_EQ(json["object"], FormatObjectRef(tuple->object));
    Result<Tuple> back = TupleFromJson(json);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, *tuple);
  }
  Result<Tuple> tuple = ParseTuple("user:b@b#owner@table:p/a#reader@table:x/y");
  ASSERT_TRUE(tuple.ok());
  EXPECT_EQ(tuple->subject, "user:b@b");
  EXPECT_EQ(tuple->relation, Relation::kOwner);
  EXPECT_EQ(tuple->object, ObjectRef::Table({"p", "a#reader@table:x", "y"}));
  EXPECT_EQ(TupleToJson(*tuple).dump(),
            R"({"object":"table:p/a#reader@table:x/y","relation":"owner","subject":"user:b@b"})");
}

TEST(AuthzModelTest, RelationsAreCheckedPerObjectType) {
  struct Case {
    ObjectType type;
    std::vector<Relation> allowed;
    std::string listed;
  };
  std::vector<Case> cases = {
      {ObjectType::kServer, {Relation::kAdmin}, "allowed: admin"},
      {ObjectType::kProject,
       {Relation::kAdmin, Relation::kWriter, Relation::kReader},
       "allowed: admin, writer, reader"},
      {ObjectType::kWarehouse,
       {Relation::kOwner, Relation::kWriter, Relation::kReader},
       "allowed: owner, writer, reader"},
      {ObjectType::kNamespace,
       {Relation::kOwner, Relation::kWriter, Relation::kReader},
       "allowed: owner, writer, reader"},
      {ObjectType::kTable,
       {Relation::kOwner, Relation::kWriter, Relation::kReader},
       "allowed: owner, writer, reader"},
  };
  for (const Case& c : cases) {
    for (Relation r : {Relation::kAdmin, Relation::kOwner, Relation::kWriter, Relation::kReader}) {
      bool allowed = std::find(c.allowed.begin(), c.allowed.end(), r) != c.allowed.end();
      Status s = ValidateRelationFor(c.type, r);
      EXPECT_EQ(s.ok(), allowed) << ObjectTypeName(c.type) << " " << RelationName(r);
      if (!allowed) {
        EXPECT_TRUE(s.IsInvalidInput());
        EXPECT_NE(s.message().find(c.listed), std::string::npos) << s.message();
      }
    }
  }
  EXPECT_EQ(RelationRank(Relation::kReader), 1);
  EXPECT_EQ(RelationRank(Relation::kWriter), 2);
  EXPECT_EQ(RelationRank(Relation::kOwner), 3);
  EXPECT_EQ(RelationRank(Relation::kAdmin), 3);
  EXPECT_FALSE(ParseRelation("Admin").ok());
  EXPECT_FALSE(ParseRelation("").ok());
}

TEST(AuthzModelTest, TupleRejections) {
  for (std::string bad : {
           std::string(""),
           std::string("user:alice"),                  // no '#'
           std::string("user:alice#admin"),            // no '@'
           std::string("user:alice#adminproject:p"),   //
           std::string("#admin@project:p"),            // empty subject
           std::string("user:#admin@project:p"),       // empty user name
           std::string("alice#admin@project:p"),       // no "user:"
           std::string("group:x#admin@project:p"),     // unknown subject kind
           std::string("user:a\x01#admin@project:p"),  // control character
           std::string("user:\xff#admin@project:p"),   // not UTF-8
           "user:" + std::string(kMaxSubjectNameBytes + 1, 'x') + "#admin@project:p",
           std::string("user:alice#@project:p"),             // empty relation
           std::string("user:alice#superuser@project:p"),    // unknown relation
           std::string("user:alice#admin@"),                 // empty object
           std::string("user:alice#admin@project:"),         // empty name
           std::string("user:alice#admin@cluster:p"),        // unknown type
           std::string("user:alice#owner@project:p"),        // not on a project
           std::string("user:alice#reader@server:quiver"),   // only admin on the server
           std::string("user:alice#admin@table:p/t"),        // no admin below a project
           std::string("user:alice#admin@namespace:p/a"),    //
           std::string("user:alice#admin@warehouse:p/w"),    //
           std::string("user:alice#reader@namespace:p//a"),  // empty part
       }) {
    Result<Tuple> tuple = ParseTuple(bad);
    EXPECT_FALSE(tuple.ok()) << bad;
    EXPECT_TRUE(tuple.status().IsInvalidInput()) << bad;
  }
  Status owner_on_project = ParseTuple("user:alice#owner@project:p").status();
  EXPECT_NE(owner_on_project.message().find("admin, writer, reader"), std::string::npos)
      << owner_on_project.message();
  EXPECT_TRUE(ValidateSubject("user:" + std::string(kMaxSubjectNameBytes, 'x')).ok());
  EXPECT_TRUE(ValidateSubject(kAnySubject).ok());
  EXPECT_FALSE(ValidateSubject("user:a#b").ok());
  EXPECT_EQ(UserSubject("alice"), kAlice);
}

TEST(AuthzModelTest, TupleJsonRejections) {
  nlohmann::json good = {{"subject", "user:a"}, {"relation", "reader"}, {"object", "project:p"}};
  ASSERT_TRUE(TupleFromJson(good).ok());
  std::vector<nlohmann::json> bad = {
      nlohmann::json::array(),
      nlohmann::json("user:a#reader@project:p"),
      {{"subject", "user:a"}, {"relation", "reader"}},
      {{"subject", "user:a"}, {"object", "project:p"}},
      {{"relation", "reader"}, {"object", "project:p"}},
      {{"subject", "user:a"}, {"relation", 1}, {"object", "project:p"}},
      {{"subject", "user:a"}, {"relation", "reader"}, {"object", "project:p"}, {"extra", "x"}},
      {{"subject", "a"}, {"relation", "reader"}, {"object", "project:p"}},
      {{"subject", "user:a"}, {"relation", "owner"}, {"object", "project:p"}},
      {{"subject", "user:a"}, {"relation", "reader"}, {"object", "project:"}},
  };
  for (const nlohmann::json& json : bad) {
    Result<Tuple> tuple = TupleFromJson(json);
    EXPECT_FALSE(tuple.ok()) << json.dump();
    EXPECT_TRUE(tuple.status().IsInvalidInput()) << json.dump();
  }
}

TEST(AuthzModelTest, PermissionsParseAndFormat) {
  Names names;
  for (Permission p : kAllPermissions) {
    names.emplace_back(PermissionName(p));
    Result<Permission> parsed = ParsePermission(PermissionName(p));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, p);
  }
  EXPECT_EQ(names, (Names{"can_observe", "can_read_data", "can_write_data", "can_create_table",
                          "can_create_namespace", "can_drop", "can_grant", "can_administer",
                          "can_create_warehouse", "can_create_project"}));
  EXPECT_TRUE(ParsePermission("observe").status().IsInvalidInput());
  EXPECT_TRUE(ParsePermission("").status().IsInvalidInput());
  EXPECT_EQ(MinRank(Permission::kObserve), 1);
  EXPECT_EQ(MinRank(Permission::kReadData), 1);
  EXPECT_EQ(MinRank(Permission::kWriteData), 2);
  EXPECT_EQ(MinRank(Permission::kCreateTable), 2);
  for (Permission p :
       {Permission::kCreateNamespace, Permission::kDrop, Permission::kGrant,
        Permission::kAdminister, Permission::kCreateWarehouse, Permission::kCreateProject}) {
    EXPECT_EQ(MinRank(p), 3) << PermissionName(p);
  }
}

// ---------------------------------------------------------------------------------------------
// Index

// server > project p > warehouse p/w > namespace p/a (in w) > namespace p/a/b > table p/a/b/t.
std::vector<ObjectRef> Levels() {
  return {ObjectRef::Server(),
          ObjectRef::Project("p"),
          ObjectRef::Warehouse("p", "w"),
          ObjectRef::Namespace({"p", "a"}),
          ObjectRef::Namespace({"p", "a", "b"}),
          ObjectRef::Table({"p", "a", "b", "t"})};
}

TEST(AuthzIndexTest, EveryPermissionInheritsDownTheHierarchy) {
  std::vector<ObjectRef> levels = Levels();
  for (size_t i = 0; i < levels.size(); ++i) {
    for (Relation r : {Relation::kAdmin, Relation::kOwner, Relation::kWriter, Relation::kReader}) {
      if (!ValidateRelationFor(levels[i].type, r).ok()) continue;
      AuthzIndex index;
      index.SetNamespaceWarehouse("p", "a", "w");
      index.SetGrants(levels[i], {{kAlice, r}});
      std::string what = fmt::format("{} on {}", RelationName(r), FormatObjectRef(levels[i]));
      for (size_t j = 0; j < levels.size(); ++j) {
        int rank = j >= i ? RelationRank(r) : 0;
        EXPECT_EQ(index.Rank(kAlice, levels[j]), rank) << what;
        EXPECT_EQ(index.Rank(kBob, levels[j]), 0) << what;
        for (Permission p : kAllPermissions) {
          bool expected = PermissionAppliesTo(p, levels[j].type) && rank >= MinRank(p);
          // Above the grant only can_observe holds (the descendant rule).
          if (j < i && p == Permission::kObserve) expected = true;
          EXPECT_EQ(index.Check(kAlice, p, levels[j]), expected)
              << what << ": " << PermissionName(p) << " on " << FormatObjectRef(levels[j]);
          EXPECT_FALSE(index.Check(kBob, p, levels[j])) << what;
        }
      }
    }
  }
}

TEST(AuthzIndexTest, MeaningfulPermissionsOnly) {
  AuthzIndex index;
  index.SetGrants(ObjectRef::Server(), {{kAlice, Relation::kAdmin}});
  EXPECT_TRUE(index.Check(kAlice, Permission::kCreateProject, ObjectRef::Server()));
  EXPECT_FALSE(index.Check(kAlice, Permission::kCreateProject, ObjectRef::Project("p")));
  EXPECT_TRUE(index.Check(kAlice, Permission::kCreateWarehouse, ObjectRef::Project("p")));
  EXPECT_FALSE(index.Check(kAlice, Permission::kCreateWarehouse, ObjectRef::Server()));
  EXPECT_FALSE(index.Check(kAlice, Permission::kCreateWarehouse, ObjectRef::Namespace({"p", "a"})));
}

TEST(AuthzIndexTest, TopLevelNamespacesInheritFromTheirWarehouse) {
  AuthzIndex index;
  index.SetGrants(ObjectRef::Warehouse("p", "w1"), {{kAlice, Relation::kWriter}});
  index.SetNamespaceWarehouse("p", "a", "w1");
  index.SetNamespaceWarehouse("p", "b", "w2");
  ObjectRef a_table = ObjectRef::Table({"p", "a", "x", "t"});
  ObjectRef b_table = ObjectRef::Table({"p", "b", "t"});
  ObjectRef c_table = ObjectRef::Table({"p", "c", "t"});
  EXPECT_EQ(index.Rank(kAlice, a_table), 2);
  EXPECT_TRUE(index.Check(kAlice, Permission::kWriteData, a_table));
  EXPECT_EQ(index.Rank(kAlice, b_table), 0);
  EXPECT_EQ(index.Rank(kAlice, c_table), 0);  // no warehouse recorded: parent is the project
  // Root tables and same-named tables are not in any warehouse.
  EXPECT_EQ(index.Rank(kAlice, ObjectRef::Table({"p", "a"})), 0);
  EXPECT_EQ(index.Rank(kAlice, ObjectRef::Project("p")), 0);

  // Re-recording moves a namespace between warehouses.
  index.SetNamespaceWarehouse("p", "a", "w2");
  index.SetNamespaceWarehouse("p", "b", "w1");
  EXPECT_EQ(index.Rank(kAlice, a_table), 0);
  EXPECT_EQ(index.Rank(kAlice, b_table), 2);
  index.ClearNamespaceWarehouse("p", "b");
  EXPECT_EQ(index.Rank(kAlice, b_table), 0);
  EXPECT_FALSE(index.Check(kAlice, Permission::kObserve, ObjectRef::Namespace({"p", "b"})));
  // Another project's namespace of the same name is unaffected.
  index.SetNamespaceWarehouse("q", "a", "w1");
  EXPECT_EQ(index.Rank(kAlice, ObjectRef::Namespace({"q", "a"})), 0);
}

TEST(AuthzIndexTest, ObserveFollowsGrantsDownward) {
  AuthzIndex index;
  index.SetNamespaceWarehouse("p", "a", "w");
  index.SetNamespaceWarehouse("p", "x", "w2");
  index.SetGrants(ObjectRef::Table({"p", "a", "b", "t"}), {{kAlice, Relation::kReader}});
  for (const char* text : {"server:quiver", "project:p", "warehouse:p/w", "namespace:p/a",
                           "namespace:p/a/b", "table:p/a/b/t"}) {
    ObjectRef ref = MustParse(text);
    EXPECT_TRUE(index.Check(kAlice, Permission::kObserve, ref)) << text;
  }
  // Observing the path does not give data access on it.
  EXPECT_FALSE(index.Check(kAlice, Permission::kReadData, ObjectRef::Namespace({"p", "a", "b"})));
  EXPECT_TRUE(index.Check(kAlice, Permission::kReadData, ObjectRef::Table({"p", "a", "b", "t"})));
  for (const char* text :
       {"project:q", "warehouse:p/w2", "namespace:p/x", "namespace:p/a/c", "table:p/a/b/u",
        "table:p/a/b", "table:p/a", "namespace:p/a/b/t", "warehouse:p/a"}) {
    ObjectRef ref = MustParse(text);
    EXPECT_FALSE(index.Check(kAlice, Permission::kObserve, ref)) << text;
  }
  // A root table named like a namespace is not inside it, nor in the namespace's warehouse.
  AuthzIndex root;
  root.SetNamespaceWarehouse("p", "a", "w");
  root.SetGrants(ObjectRef::Table({"p", "a"}), {{kAlice, Relation::kReader}});
  EXPECT_TRUE(root.Check(kAlice, Permission::kObserve, ObjectRef::Project("p")));
  EXPECT_FALSE(root.Check(kAlice, Permission::kObserve, ObjectRef::Namespace({"p", "a"})));
  EXPECT_FALSE(root.Check(kAlice, Permission::kObserve, ObjectRef::Warehouse("p", "w")));
  // A grant on the warehouse itself is not "below" a same-named namespace.
  root.SetGrants(ObjectRef::Warehouse("p", "a"), {{kBob, Relation::kReader}});
  EXPECT_FALSE(root.Check(kBob, Permission::kObserve, ObjectRef::Namespace({"p", "a"})));
  EXPECT_TRUE(root.Check(kBob, Permission::kObserve, ObjectRef::Project("p")));
}

TEST(AuthzIndexTest, WildcardSubjectCountsForEveryone) {
  AuthzIndex index;
  index.SetGrants(ObjectRef::Namespace({"p", "public"}),
                  {{std::string(kAnySubject), Relation::kReader}});
  index.SetGrants(ObjectRef::Table({"p", "public", "t"}), {{kAlice, Relation::kWriter}});
  ObjectRef t = ObjectRef::Table({"p", "public", "t"});
  ObjectRef u = ObjectRef::Table({"p", "public", "u"});
  EXPECT_TRUE(index.Check(kBob, Permission::kReadData, u));
  EXPECT_FALSE(index.Check(kBob, Permission::kWriteData, t));
  EXPECT_TRUE(index.Check(kAlice, Permission::kWriteData, t));
  EXPECT_EQ(index.Rank("user:anyone", t), 1);
  EXPECT_EQ(index.Rank(kAnySubject, t), 1);
  EXPECT_TRUE(index.Check(kBob, Permission::kObserve, ObjectRef::Project("p")));
  EXPECT_EQ(index.VisibleChildren(kBob, ObjectRef::Project("p"), ChildKind::kNamespace),
            Names{"public"});
  EXPECT_EQ(index.ProjectsOf(kBob), Names{"p"});
  // Read reports the stored tuples: bob holds none himself.
  TupleFilter bob;
  bob.subject = kBob;
  EXPECT_TRUE(index.Read(bob).empty());
}

TEST(AuthzIndexTest, VisibleChildrenFollowsNestedGrants) {
  AuthzIndex index;
  index.SetGrants(ObjectRef::Table({"p", "a", "b", "t"}), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Table({"p", "root_table"}), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Namespace({"p", "a", "c"}), {{kAlice, Relation::kOwner}});
  index.SetGrants(ObjectRef::Namespace({"p", "z"}), {{kBob, Relation::kOwner}});
  index.SetGrants(ObjectRef::Table({"q", "a", "t"}), {{kAlice, Relation::kReader}});
  ObjectRef p = ObjectRef::Project("p");
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace), Names{"a"});
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kTable), Names{"root_table"});
  ObjectRef a = ObjectRef::Namespace({"p", "a"});
  EXPECT_EQ(index.VisibleChildren(kAlice, a, ChildKind::kNamespace), (Names{"b", "c"}));
  EXPECT_EQ(index.VisibleChildren(kAlice, a, ChildKind::kTable), Names{});
  ObjectRef ab = ObjectRef::Namespace({"p", "a", "b"});
  EXPECT_EQ(index.VisibleChildren(kAlice, ab, ChildKind::kTable), Names{"t"});
  EXPECT_EQ(index.VisibleChildren(kAlice, ab, ChildKind::kNamespace), Names{});
  EXPECT_EQ(index.VisibleChildren(kBob, p, ChildKind::kNamespace), Names{"z"});
  EXPECT_EQ(index.VisibleChildren("user:nobody", p, ChildKind::kNamespace), Names{});
  // Tables and warehouses have no children here.
  EXPECT_EQ(
      index.VisibleChildren(kAlice, ObjectRef::Table({"p", "a", "b", "t"}), ChildKind::kTable),
      Names{});
  EXPECT_EQ(index.VisibleChildren(kAlice, ObjectRef::Warehouse("p", "w"), ChildKind::kNamespace),
            Names{});

  // A table and a namespace of the same name: each shows up only as its own kind.
  index.SetGrants(ObjectRef::Table({"p", "a", "b"}), {{kAlice, Relation::kReader}});
  EXPECT_EQ(index.VisibleChildren(kAlice, a, ChildKind::kTable), Names{"b"});
  EXPECT_EQ(index.VisibleChildren(kAlice, a, ChildKind::kNamespace), (Names{"b", "c"}));
  index.SetGrants(ObjectRef::Table({"p", "a", "b", "t"}), {});
  EXPECT_EQ(index.VisibleChildren(kAlice, a, ChildKind::kNamespace), Names{"c"});
  EXPECT_EQ(index.VisibleChildren(kAlice, a, ChildKind::kTable), Names{"b"});
}

TEST(AuthzIndexTest, VisibleChildrenPages) {
  AuthzIndex index;
  ObjectRef p = ObjectRef::Project("p");
  Names expected;
  for (int i = 0; i < 25; ++i) {
    std::string name = fmt::format("n{:02}", i);
    expected.push_back(name);
    // Alternate between grants on the namespace, deep inside it, and (for a few) the wildcard.
    if (i % 5 == 4) {
      index.SetGrants(ObjectRef::Namespace({"p", name}),
                      {{std::string(kAnySubject), Relation::kReader}});
    } else if (i % 2 == 0) {
      index.SetGrants(ObjectRef::Namespace({"p", name}), {{kAlice, Relation::kReader}});
    } else {
      index.SetGrants(ObjectRef::Table({"p", name, "x", "t"}), {{kAlice, Relation::kReader}});
    }
    index.SetGrants(ObjectRef::Table({"p", name}), {{kAlice, Relation::kReader}});
  }
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace), expected);
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kTable), expected);
  for (ChildKind kind : {ChildKind::kNamespace, ChildKind::kTable}) {
    for (size_t page_size : {1u, 7u, 10u, 25u, 100u}) {
      Names all;
      std::string start_after;
      for (int pages = 0;; ++pages) {
        ASSERT_LE(pages, 26) << "paging does not advance";
        Names page = index.VisibleChildren(kAlice, p, kind, start_after, page_size);
        ASSERT_LE(page.size(), page_size);
        all.insert(all.end(), page.begin(), page.end());
        if (page.size() < page_size) break;
        start_after = page.back();
      }
      EXPECT_EQ(all, expected) << page_size;
    }
  }
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace, "n22"), (Names{"n23", "n24"}));
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace, "n03x", 2),
            (Names{"n04", "n05"}));
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace, "n24"), Names{});
  EXPECT_EQ(index.VisibleChildren(kBob, p, ChildKind::kNamespace),
            (Names{"n04", "n09", "n14", "n19", "n24"}));
}

TEST(AuthzIndexTest, VisibleChildrenExpandsWarehouseGrants) {
  AuthzIndex index;
  index.SetNamespaceWarehouse("p", "a", "w");
  index.SetNamespaceWarehouse("p", "m", "w");
  index.SetNamespaceWarehouse("p", "c", "w2");
  index.SetNamespaceWarehouse("q", "qq", "w");
  // Warehouse "z" sorts after every namespace it holds; "b" and "d" are direct grants.
  index.SetNamespaceWarehouse("p", "y", "z");
  index.SetGrants(ObjectRef::Warehouse("p", "w"), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Warehouse("p", "z"), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Namespace({"p", "b"}), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Table({"p", "d", "t"}), {{kAlice, Relation::kReader}});
  ObjectRef p = ObjectRef::Project("p");
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace),
            (Names{"a", "b", "d", "m", "y"}));
  // The scan meets b and d before warehouse w, yet w's "a" comes first.
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace, "", 2), (Names{"a", "b"}));
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace, "a", 2), (Names{"b", "d"}));
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace, "d", 2), (Names{"m", "y"}));
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace, "m", 2), Names{"y"});
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kTable), Names{});
  // Warehouse grants are observable paths to their namespaces, and reveal nothing deeper.
  EXPECT_TRUE(index.Check(kAlice, Permission::kReadData, ObjectRef::Namespace({"p", "m"})));
  EXPECT_FALSE(index.Check(kAlice, Permission::kReadData, ObjectRef::Namespace({"p", "c"})));
  EXPECT_EQ(index.VisibleChildren(kAlice, ObjectRef::Project("q"), ChildKind::kNamespace), Names{});
  // A namespace newly recorded in the warehouse becomes visible; one moved out does not.
  index.SetNamespaceWarehouse("p", "c", "w");
  index.SetNamespaceWarehouse("p", "m", "w2");
  EXPECT_EQ(index.VisibleChildren(kAlice, p, ChildKind::kNamespace),
            (Names{"a", "b", "c", "d", "y"}));
}

TEST(AuthzIndexTest, ProjectsOfListsEveryProjectTouched) {
  AuthzIndex index;
  index.SetGrants(ObjectRef::Server(), {{kAlice, Relation::kAdmin}});
  index.SetGrants(ObjectRef::Project("p1"), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Warehouse("p2", "w"), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Table({"p3", "a", "b", "t"}), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Table({"p3", "t"}), {{kAlice, Relation::kReader}});
  index.SetGrants(ObjectRef::Namespace({"p4", "a"}), {{kBob, Relation::kReader}});
  index.SetGrants(ObjectRef::Table({"p0", "t"}), {{std::string(kAnySubject), Relation::kReader}});
  EXPECT_EQ(index.ProjectsOf(kAlice), (Names{"p0", "p1", "p2", "p3"}));
  EXPECT_EQ(index.ProjectsOf(kBob), (Names{"p0", "p4"}));
  EXPECT_EQ(index.ProjectsOf("user:nobody"), Names{"p0"});
}

TEST(AuthzIndexTest, SetGrantsReplacesAndDeduplicates) {
  AuthzIndex index;
  ObjectRef t = ObjectRef::Table({"p", "t"});
  index.SetGrants(t, {{kBob, Relation::kReader},
                      {kAlice, Relation::kOwner},
                      {kBob, Relation::kReader},
                      {kBob, Relation::kWriter}});
  EXPECT_EQ(index.TupleCount(), 3u);
  EXPECT_EQ(index.GrantsOn(t),
            (std::vector<Grant>{
                {kAlice, Relation::kOwner}, {kBob, Relation::kWriter}, {kBob, Relation::kReader}}));
  EXPECT_EQ(index.Rank(kBob, t), 2);
  index.SetGrants(t, {{kBob, Relation::kReader}});
  EXPECT_EQ(index.TupleCount(), 1u);
  EXPECT_EQ(index.Rank(kAlice, t), 0);
  EXPECT_EQ(index.Rank(kBob, t), 1);
  EXPECT_EQ(index.ProjectsOf(kAlice), Names{});
  index.SetGrants(t, {});
  EXPECT_EQ(index.TupleCount(), 0u);
  EXPECT_TRUE(index.GrantsOn(t).empty());
  EXPECT_EQ(index.ProjectsOf(kBob), Names{});
  index.SetGrants(t, {{kBob, Relation::kReader}});
  index.SetNamespaceWarehouse("p", "a", "w");
  index.Clear();
  EXPECT_EQ(index.TupleCount(), 0u);
  EXPECT_EQ(index.Rank(kBob, t), 0);
}

// Grants on every level of two projects, two warehouses and a same-named root table.
void Populate(AuthzIndex* index) {
  index->SetNamespaceWarehouse("p", "a", "w");
  index->SetNamespaceWarehouse("p", "b", "w");
  index->SetNamespaceWarehouse("p", "c", "w2");
  index->SetNamespaceWarehouse("q", "a", "w");
  for (const char* text :
       {"project:p", "warehouse:p/w", "warehouse:p/w2", "namespace:p/a", "namespace:p/a/x",
        "table:p/a/x/t", "table:p/a", "namespace:p/b", "table:p/b/t", "namespace:p/c",
        "table:p/c/t", "table:p/root", "project:q", "namespace:q/a", "table:q/a/t"}) {
    ObjectRef ref = MustParse(text);
    Relation r = ref.type == ObjectType::kProject ? Relation::kReader : Relation::kOwner;
    index->SetGrants(ref, {{kAlice, r}, {kBob, Relation::kReader}});
  }
}

Names ObjectsWithGrants(const AuthzIndex& index) {
  Names out;
  for (const Tuple& t : index.Read({})) {
    if (t.subject == kAlice) out.push_back(FormatObjectRef(t.object));
  }
  return out;
}

TEST(AuthzIndexTest, RemoveSubtreeDropsDescendantsAndWarehouseRecords) {
  {
    AuthzIndex index;
    Populate(&index);
    EXPECT_EQ(index.TupleCount(), 30u);
    index.RemoveSubtree(ObjectRef::Namespace({"p", "a"}));
    // The same-named root table p/a is not inside namespace p/a.
    EXPECT_EQ(ObjectsWithGrants(index),
              (Names{"project:p", "table:p/a", "namespace:p/b", "table:p/b/t", "namespace:p/c",
                     "table:p/c/t", "table:p/root", "warehouse:p/w", "warehouse:p/w2", "project:q",
                     "namespace:q/a", "table:q/a/t"}));
    EXPECT_EQ(index.TupleCount(), 24u);
    // Its warehouse record went too: a namespace re-created as p/a starts under the project.
    index.SetGrants(ObjectRef::Warehouse("p", "w"), {{"user:carol", Relation::kWriter}});
    EXPECT_EQ(index.Rank("user:carol", ObjectRef::Namespace({"p", "a"})), 0);
    EXPECT_EQ(index.Rank("user:carol", ObjectRef::Namespace({"p", "b"})), 2);
  }
  {
    AuthzIndex index;
    Populate(&index);
    index.RemoveSubtree(ObjectRef::Warehouse("p", "w"));
    EXPECT_EQ(ObjectsWithGrants(index),
              (Names{"project:p", "table:p/a", "namespace:p/c", "table:p/c/t", "table:p/root",
                     "warehouse:p/w2", "project:q", "namespace:q/a", "table:q/a/t"}));
    EXPECT_EQ(index.TupleCount(), 18u);
    index.SetGrants(ObjectRef::Warehouse("p", "w"), {{"user:carol", Relation::kWriter}});
    EXPECT_EQ(index.Rank("user:carol", ObjectRef::Namespace({"p", "b"})), 0);
    // Project q's namespace in its own warehouse "w" is untouched.
    index.SetGrants(ObjectRef::Warehouse("q", "w"), {{"user:carol", Relation::kWriter}});
    EXPECT_EQ(index.Rank("user:carol", ObjectRef::Table({"q", "a", "t"})), 2);
  }
  {
    AuthzIndex index;
    Populate(&index);
    index.RemoveSubtree(ObjectRef::Project("p"));
    EXPECT_EQ(ObjectsWithGrants(index), (Names{"project:q", "namespace:q/a", "table:q/a/t"}));
    EXPECT_EQ(index.TupleCount(), 6u);
    EXPECT_EQ(index.ProjectsOf(kAlice), Names{"q"});
    EXPECT_EQ(index.VisibleChildren(kBob, ObjectRef::Project("p"), ChildKind::kNamespace), Names{});
  }
  {
    AuthzIndex index;
    Populate(&index);
    index.RemoveSubtree(ObjectRef::Table({"p", "a", "x", "t"}));
    EXPECT_EQ(index.TupleCount(), 28u);
    EXPECT_EQ(
        index.VisibleChildren(kAlice, ObjectRef::Namespace({"p", "a", "x"}), ChildKind::kTable),
        Names{});
    index.RemoveSubtree(ObjectRef::Server());
    EXPECT_EQ(index.TupleCount(), 0u);
    EXPECT_EQ(index.ProjectsOf(kAlice), Names{});
  }
}

TEST(AuthzIndexTest, MoveObjectCarriesTableGrants) {
  AuthzIndex index;
  ObjectRef from = ObjectRef::Table({"p", "a", "t"});
  ObjectRef to = ObjectRef::Table({"p", "b", "u"});
  index.SetGrants(from, {{kAlice, Relation::kOwner}, {kBob, Relation::kReader}});
  index.SetGrants(to, {{"user:carol", Relation::kReader}});  // stale grants are replaced
  index.MoveObject(from, to);
  EXPECT_TRUE(index.GrantsOn(from).empty());
  EXPECT_EQ(index.GrantsOn(to),
            (std::vector<Grant>{{kAlice, Relation::kOwner}, {kBob, Relation::kReader}}));
  EXPECT_EQ(index.TupleCount(), 2u);
  EXPECT_EQ(index.Rank(kAlice, from), 0);
  EXPECT_EQ(index.Rank(kAlice, to), 3);
  EXPECT_EQ(index.Rank("user:carol", to), 0);
  EXPECT_EQ(index.VisibleChildren(kAlice, ObjectRef::Project("p"), ChildKind::kNamespace),
            Names{"b"});
  EXPECT_EQ(index.VisibleChildren(kAlice, ObjectRef::Namespace({"p", "b"}), ChildKind::kTable),
            Names{"u"});
  index.MoveObject(to, to);
  EXPECT_EQ(index.TupleCount(), 2u);
}

TEST(AuthzIndexTest, ReadFiltersAndPages) {
  AuthzIndex index;
  Populate(&index);
  std::vector<Tuple> all = index.Read({});
  ASSERT_EQ(all.size(), 30u);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  for (const Tuple& t : all) EXPECT_TRUE(ValidateTuple(t).ok()) << FormatTuple(t);

  TupleFilter f;
  f.subject = kBob;
  EXPECT_EQ(index.Read(f).size(), 15u);
  f.relation = Relation::kOwner;
  EXPECT_TRUE(index.Read(f).empty());
  f = {};
  f.relation = Relation::kReader;
  EXPECT_EQ(index.Read(f).size(), 17u);  // bob's 15 and alice's two projects

  f = {};
  f.object = ObjectRef::Namespace({"p", "a"});
  std::vector<Tuple> on_a = index.Read(f);
  ASSERT_EQ(on_a.size(), 2u);
  EXPECT_EQ(FormatTuple(on_a[0]), "user:alice#owner@namespace:p/a");
  EXPECT_EQ(FormatTuple(on_a[1]), "user:bob#reader@namespace:p/a");

  auto objects = [](const std::vector<Tuple>& tuples) {
    Names out;
    for (const Tuple& t : tuples) {
      if (t.subject == kAlice) out.push_back(FormatObjectRef(t.object));
    }
    return out;
  };
  f = {};
  f.object_prefix = ObjectRef::Warehouse("p", "w");
  EXPECT_EQ(objects(index.Read(f)), (Names{"namespace:p/a", "namespace:p/a/x", "table:p/a/x/t",
                                           "namespace:p/b", "table:p/b/t", "warehouse:p/w"}));
  f.subject = kAlice;
  EXPECT_EQ(index.Read(f).size(), 6u);
  f = {};
  f.object_prefix = ObjectRef::Namespace({"p", "a"});
  EXPECT_EQ(objects(index.Read(f)), (Names{"namespace:p/a", "namespace:p/a/x", "table:p/a/x/t"}));
  f.object = ObjectRef::Table({"p", "a", "x", "t"});
  EXPECT_EQ(index.Read(f).size(), 2u);
  f.object = ObjectRef::Table({"p", "c", "t"});  // not under the prefix
  EXPECT_TRUE(index.Read(f).empty());
  f = {};
  f.object_prefix = ObjectRef::Project("q");
  EXPECT_EQ(objects(index.Read(f)), (Names{"project:q", "namespace:q/a", "table:q/a/t"}));

  // Paging with the last tuple of each page, round-tripped through its text, as a server would.
  for (size_t page_size : {1u, 4u, 7u, 30u}) {
    for (bool by_subject : {false, true}) {
      TupleFilter page_filter;
      if (by_subject) page_filter.subject = kAlice;
      page_filter.limit = page_size;
      std::vector<Tuple> paged;
      for (int pages = 0;; ++pages) {
        ASSERT_LE(pages, 31) << "paging does not advance";
        std::vector<Tuple> page = index.Read(page_filter);
        ASSERT_LE(page.size(), page_size);
        paged.insert(paged.end(), page.begin(), page.end());
        if (page.size() < page_size) break;
        Result<Tuple> token = ParseTuple(FormatTuple(page.back()));
        ASSERT_TRUE(token.ok());
        page_filter.start_after = *token;
      }
      std::vector<Tuple> expected;
      for (const Tuple& t : all) {
        if (!by_subject || t.subject == kAlice) expected.push_back(t);
      }
      EXPECT_EQ(paged, expected) << page_size << " " << by_subject;
    }
  }
}

// 10,000 tables x 10 users = 100,000 tuples, and one user with 10 grants. The assertions are on
// results only; the index's cost model (lookups and range scans over the user's own grants) is
// what keeps this test quick.
TEST(AuthzIndexTest, ScaleHundredThousandTuples) {
  AuthzIndex index;
  constexpr int kNamespaces = 100;
  constexpr int kTablesPerNamespace = 100;
  constexpr int kUsers = 10;
  for (int n = 0; n < kNamespaces; ++n) {
    std::string ns = fmt::format("ns{:03}", n);
    index.SetNamespaceWarehouse("p", ns, n % 2 == 0 ? "even" : "odd");
    for (int t = 0; t < kTablesPerNamespace; ++t) {
      std::vector<Grant> grants;
      for (int u = 0; u < kUsers; ++u) {
        grants.push_back(
            {fmt::format("user:u{}", u), u == 0 ? Relation::kOwner : Relation::kReader});
      }
      index.SetGrants(ObjectRef::Table({"p", ns, fmt::format("t{:03}", t)}), std::move(grants));
    }
  }
  // Ten grants for carol: table t007 in namespaces ns000, ns010, ..., ns090.
  Names carol_namespaces;
  for (int n = 0; n < kNamespaces; n += 10) {
    std::string ns = fmt::format("ns{:03}", n);
    carol_namespaces.push_back(ns);
    index.SetGrants(ObjectRef::Table({"p", ns, "t007"}),
                    {{"user:carol", Relation::kWriter}, {"user:u0", Relation::kOwner}});
  }
  // The carol grants replaced the ten users' on those ten tables.
  EXPECT_EQ(index.TupleCount(), 100u * 1000u - 10u * kUsers + 20u);

  const std::string carol = "user:carol";
  ObjectRef p = ObjectRef::Project("p");
  EXPECT_EQ(index.VisibleChildren(carol, p, ChildKind::kNamespace), carol_namespaces);
  EXPECT_EQ(index.VisibleChildren(carol, p, ChildKind::kNamespace, "ns045", 3),
            (Names{"ns050", "ns060", "ns070"}));
  EXPECT_EQ(index.ProjectsOf(carol), Names{"p"});
  for (int n = 0; n < kNamespaces; ++n) {
    std::string ns = fmt::format("ns{:03}", n);
    bool hers = n % 10 == 0;
    ObjectRef ns_ref = ObjectRef::Namespace({"p", ns});
    EXPECT_EQ(index.Check(carol, Permission::kObserve, ns_ref), hers) << ns;
    EXPECT_FALSE(index.Check(carol, Permission::kReadData, ns_ref)) << ns;
    EXPECT_EQ(index.VisibleChildren(carol, ns_ref, ChildKind::kTable),
              hers ? Names{"t007"} : Names{})
        << ns;
    for (int t = 0; t < kTablesPerNamespace; t += 7) {
      ObjectRef table = ObjectRef::Table({"p", ns, fmt::format("t{:03}", t)});
      EXPECT_EQ(index.Check(carol, Permission::kWriteData, table), hers && t == 7);
    }
  }
  EXPECT_TRUE(index.Check(carol, Permission::kObserve, ObjectRef::Warehouse("p", "even")));
  EXPECT_FALSE(index.Check(carol, Permission::kObserve, ObjectRef::Warehouse("p", "odd")));
  EXPECT_EQ(index.VisibleChildren("user:u3", p, ChildKind::kNamespace).size(), 100u);
  EXPECT_EQ(index.VisibleChildren("user:u3", p, ChildKind::kNamespace, "", 5).size(), 5u);
  EXPECT_EQ(index.Rank("user:u0", ObjectRef::Table({"p", "ns099", "t099"})), 3);
  TupleFilter f;
  f.subject = carol;
  EXPECT_EQ(index.Read(f).size(), 10u);
  index.RemoveSubtree(ObjectRef::Warehouse("p", "odd"));
  EXPECT_EQ(index.TupleCount(), 50u * 1000u - 10u * kUsers + 20u);  // carol's were all even
  EXPECT_EQ(index.VisibleChildren(carol, p, ChildKind::kNamespace), carol_namespaces);
}

// Readers running against a writer that keeps changing other grants always see the grants that
// are never touched, and never see one that is never given.
TEST(AuthzIndexTest, ConcurrentReadersSeeConsistentGrants) {
  AuthzIndex index;
  const std::string carol = "user:carol";
  ObjectRef p = ObjectRef::Project("p");
  ObjectRef stable = ObjectRef::Namespace({"p", "stable"});
  ObjectRef stable_table = ObjectRef::Table({"p", "stable", "t"});
  index.SetGrants(stable, {{carol, Relation::kReader}});
  constexpr int kWrites = 2000;
  constexpr int kReads = 2000;

  std::atomic<bool> failed{false};
  std::thread writer([&] {
    for (int i = 0; i < kWrites; ++i) {
      std::string ns = fmt::format("churn{}", i % 7);
      ObjectRef table = ObjectRef::Table({"p", ns, fmt::format("t{}", i % 13)});
      index.SetGrants(table, {{carol, Relation::kReader}, {kBob, Relation::kWriter}});
      index.SetGrants(ObjectRef::Namespace({"p", ns}),
                      {{std::string(kAnySubject), Relation::kReader}});
      if (i % 5 == 0) index.RemoveSubtree(ObjectRef::Namespace({"p", ns}));
      if (i % 11 == 0) index.SetNamespaceWarehouse("p", ns, "w");
      if (i % 17 == 0) index.ClearNamespaceWarehouse("p", ns);
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&] {
      for (int i = 0; i < kReads && !failed; ++i) {
        bool ok = index.Check(carol, Permission::kReadData, stable_table) &&
                  index.Check(carol, Permission::kObserve, p) &&
                  !index.Check(carol, Permission::kWriteData, stable_table) &&
                  !index.Check(kBob, Permission::kReadData, stable_table) &&
                  index.Rank(carol, stable_table) == 1;
        Names children = index.VisibleChildren(carol, p, ChildKind::kNamespace);
        ok = ok && std::binary_search(children.begin(), children.end(), "stable") &&
             std::is_sorted(children.begin(), children.end());
        Names tables = index.VisibleChildren(carol, stable, ChildKind::kTable);
        ok = ok && tables.empty();
        if (!ok) failed = true;
      }
    });
  }
  writer.join();
  for (std::thread& t : readers) t.join();
  EXPECT_FALSE(failed);
  EXPECT_EQ(index.GrantsOn(stable), (std::vector<Grant>{{carol, Relation::kReader}}));
  EXPECT_TRUE(index.Check(carol, Permission::kReadData, stable_table));
}

}  // namespace
}  // namespace quiver::catalog::authz
