// The authorization step of the request pipeline: the door rules (docs/authorization.md). Which
// door each operation goes through, and the permission it needs on which object, is in its row
// of the operation table (operation_table.h).
//
//   read and destructive doors   allowed → the handler runs; else, if the caller may observe
//                                the object → 403 PermissionDenied; else the same 404 that a
//                                missing object gets (no existence oracle)
//   create doors                 shape (400) → parent exists (404 naming it and how to create
//                                it) → permission on the parent (403) → the handler (409, write)
//   a deactivated warehouse      every operation on its namespaces and tables → 403
//
// Every decision that would refuse first re-reads the records along the object's chain
// (AccessControl::Reconcile), so a grant just made on another server is honoured.
// Thread-safety: pure functions over thread-safe state.
#pragma once

#include <string_view>

#include "catalog/access_control.h"
#include "catalog/authz/model.h"
#include "catalog/catalog.h"
#include "common/status.h"
#include "server/call.h"

namespace quiver::server::internal {

// Runs the door checks of a spec operation: its row's door, permission and target
// (operation_table.h). REQUIRES: the call is scoped (call.project set, call.id = {project, ...}).
Status AuthorizeSpecCall(catalog::Catalog& catalog, catalog::AccessControl& access,
                         const Call& call);

// The header that picks one of the principal's projects.
inline constexpr std::string_view kProjectHeader = "x-quiver-project";

// The call's tenant: the `x-quiver-project` header if the principal may see that project (else
// the same 404 as a missing project), otherwise the principal's only project, or `default`
// when it is one of several. Server admins (and everyone, with authentication off) get
// `default` unless they name another. Never taken from a body or query field.
Result<std::string> ResolveProject(catalog::Catalog& catalog, catalog::AccessControl& access,
                                   const Call& call);

// The index object a scoped id names.
catalog::authz::ObjectRef RefOf(Target target, const catalog::ObjectId& scoped);

// Allowed → OK; else Reconcile and ask again; still refused → 403 with `denied` when the
// caller may observe the object, else `hidden` (the missing-object error).
Status Require(catalog::AccessControl& access, std::string_view subject,
               catalog::authz::Permission permission, const catalog::authz::ObjectRef& obj,
               Status hidden);

// The 404 a missing table / namespace gets, identical for every caller who cannot see it.
Status HiddenTable(const catalog::ObjectId& scoped);
Status HiddenNamespace(const catalog::ObjectId& scoped);

}  // namespace quiver::server::internal
