// LanceDB's remote client (`lancedb.connect("db://NAME", {apiKey, hostOverride})`, the client of
// LanceDB Cloud/Enterprise, which does no storage I/O) against `quiver serve`, differentially:
// every workflow runs the same calls on an embedded LanceDB (a local directory) and through
// quiver, and compares rows, counts, schemas, versions and search results (exact search: the
// same ids in the same order, `_distance` within 1e-5 relative). Calls the embedded database
// cannot make (namespaces, rename) and the errors the remote client must report are checked on
// the remote side alone.
//
//   node check_remote.mjs <quiver binary> <scratch dir> <open|auth-key>
//
// `open` serves without authentication (the client still needs some API key to connect);
// `auth-key` serves with --auth, and the client sends a project admin's quiver API key as its
// `x-api-key`. The remote "database" is quiver's `default` project (db://default).
// The multipart write (phalanx-version 0.4.0: more than 1M rows and more than one compute
// thread) runs in the `open` mode only.
import fs from "node:fs";
import path from "node:path";

// The client plans a multipart add only when Lance may run several partitions, one per compute
// thread: on a 2-core machine it needs more threads than cores (read when the native module
// loads, hence the dynamic imports).
process.env.LANCE_CPU_THREADS ??= "4";
const { lancedb, arrow: A, VERSIONS } = await import("./lib.mjs");
const { createReport, quiverRunner, startQuiverServe, stopQuiverServe } = await import("./checks.mjs");

const [QUIVER, SCRATCH, MODE] = process.argv.slice(2);
if (!QUIVER || !SCRATCH || !["open", "auth-key"].includes(MODE)) {
  console.error("usage: node check_remote.mjs <quiver binary> <scratch dir> <open|auth-key>");
  process.exit(2);
}
const AUTH = MODE === "auth-key";
let API_KEY = "quiver-without-auth";  // the client refuses to connect without one
const { check, finish } = createReport();
const quiver = quiverRunner(QUIVER);
console.log(`LanceDB ${VERSIONS.lancedb}, mode ${MODE}`);

const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
const DIM = 4;
const schema = new A.Schema([
  f("id", new A.Int64(), false), f("text", new A.Utf8()), f("cat", new A.Utf8()), f("x", new A.Float64()),
  f("vector", new A.FixedSizeList(DIM, f("item", new A.Float32()))),
]);
const CATS = ["a", "b", "c"];
const rowsOf = (from, n) => Array.from({ length: n }, (_, i) => {
  const k = from + i;
  return {
    id: BigInt(k), text: k % 7 === 0 ? null : `t${k}`, cat: CATS[k % 3], x: k % 5 === 0 ? null : k / 8,
    vector: Array.from({ length: DIM }, (_, d) => Math.sin(k * (d + 1)) * 10),
  };
});
const tableOf = (rows) => lancedb.makeArrowTable(rows, { schema });

// Rows as comparable JSON (bigints as numbers, vectors as arrays, floats rounded).
const round = (v) => (typeof v === "number" && !Number.isInteger(v) ? Number(v.toPrecision(9)) : v);
function plain(rows) {
  return rows.map((r) => {
    const o = {};
    for (const [k, v] of Object.entries(r)) {
      if (k === "_distance") continue;
      if (typeof v === "bigint") o[k] = Number(v);
      else if (v !== null && typeof v === "object" && typeof v.length === "number") o[k] = Array.from(v, round);
      else o[k] = round(v);
    }
    return o;
  });
}
const byId = (rows) => [...rows].sort((a, b) => Number(a.id) - Number(b.id));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const brief = (v) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? Number(x) : x)).slice(0, 600);
const schemaOf = (s) => s.fields.map((x) => `${x.name}:${x.type}:${x.nullable}`).join(", ");

// Runs `fn` on both tables and checks that their results agree.
async function both(name, localTbl, remoteTbl, fn, compare = same) {
  let local, remote;
  try {
    local = await fn(localTbl);
  } catch (e) {
    local = { error: String(e.message ?? e) };
  }
  try {
    remote = await fn(remoteTbl);
  } catch (e) {
    remote = { error: String(e.message ?? e) };
  }
  const ok = !remote?.error && !local?.error && compare(local, remote);
  check(name, ok, ok ? "" : `embedded: ${brief(local)}\n  quiver: ${brief(remote)}`);
  return { local, remote };
}
// Exact search results: same ids in the same order, distances within 1e-5 relative.
function sameSearch(a, b) {
  if (a.length !== b.length) return false;
  return a.every((r, i) => Number(r.id) === Number(b[i].id) &&
    Math.abs(r._distance - b[i]._distance) <= 1e-5 * Math.max(1, Math.abs(r._distance)));
}
// A remote call that must fail, with `pattern` in its message; how long it took (a retried
// error takes seconds: the client retries 409/5xx three times with backoff).
async function fails(name, pattern, fn) {
  const start = Date.now();
  try {
    const v = await fn();
    check(name, false, `succeeded: ${brief(v)}`);
  } catch (e) {
    const msg = String(e.message ?? e);
    const ms = Date.now() - start;
    check(name, pattern.test(msg) && !/retry limit/i.test(msg), `${msg} (${ms} ms)`);
  }
}

async function main() {
  fs.rmSync(SCRATCH, { recursive: true, force: true });
  const root = path.join(SCRATCH, "root");
  fs.mkdirSync(root, { recursive: true });
  const serveArgs = ["serve", "--root", root, "--listen", "127.0.0.1:0"];
  if (AUTH) {
    const g = quiver("access", "grant", root, "user:remote-admin#admin@project:default");
    check("grant the remote client's principal admin on project:default", g.ok, g.out);
    const k = quiver("access", "create-key", root, "--principal", "user:remote-admin");
    check("quiver access create-key", k.ok && /^qv_/.test(k.out.trim()), k.out);
    API_KEY = k.out.trim();
    serveArgs.push("--auth");
  }
  const server = startQuiverServe(QUIVER, serveArgs);
  await server.ready;
  try {
    const local = await lancedb.connect(path.join(SCRATCH, "embedded"));
    const remote = await lancedb.connect("db://default", { apiKey: API_KEY, hostOverride: server.url });
    await workflows(local, remote, server);
    if (AUTH) {
      const bad = await lancedb.connect("db://default", { apiKey: "qv_not_a_key", hostOverride: server.url });
      await fails("a wrong API key is refused (401, not retried)", /401/, () => bad.tableNames());
      const other = await lancedb.connect("db://nosuchproject", { apiKey: API_KEY, hostOverride: server.url });
      await fails("a database that is no project of the caller's is not found", /404|not found/i,
        () => other.tableNames());
    } else {
      await multipart(remote, server);
    }
  } finally {
    const stopped = await stopQuiverServe(server);
    check("quiver serve stops cleanly", stopped && !stopped.timedOut, server.err.slice(-2000));
  }
}

async function workflows(local, remote, server) {
  // --- create, list, open, schema ---
  const lt = await local.createTable("t1", tableOf(rowsOf(0, 300)));
  const rt = await remote.createTable("t1", tableOf(rowsOf(0, 300)));
  check("tableNames", same(await remote.tableNames(), await local.tableNames()),
    brief([await remote.tableNames(), await local.tableNames()]));
  await both("schema (Lance's JSON vocabulary in describe/)", lt, rt, async (t) => schemaOf(await t.schema()));
  await both("version after create", lt, rt, (t) => t.version());
  const opened = await remote.openTable("t1");
  check("openTable", (await opened.countRows()) === 300);
  await fails("createTable of an existing name says it already exists", /already exists/i,
    () => remote.createTable("t1", tableOf(rowsOf(0, 1))));
  const again = await remote.createTable("t1", tableOf(rowsOf(0, 1)), { existOk: true });
  check("createTable existOk opens the existing table", (await again.countRows()) === 300);
  await fails("openTable of a missing table is TableNotFound", /was not found|not found/i,
    async () => (await remote.openTable("nope")).countRows());
  const empty = await remote.createEmptyTable("empty", schema);
  check("createEmptyTable", (await empty.countRows()) === 0 && schemaOf(await empty.schema()) === schemaOf(await lt.schema()));

  // --- counts and scans ---
  await both("countRows", lt, rt, (t) => t.countRows());
  await both("countRows with a filter", lt, rt, (t) => t.countRows("cat = 'a' AND x > 10"));
  await both("full scan", lt, rt, async (t) => plain(byId(await t.query().toArray())));
  await both("filter + select + limit (scan order)", lt, rt,
    async (t) => plain(await t.query().where("x > 3 OR text IS NULL").select(["id", "text"]).limit(17).toArray()));
  await both("offset", lt, rt, async (t) => plain(await t.query().select(["id"]).limit(5).offset(100).toArray()));
  await both("computed columns (select map)", lt, rt,
    async (t) => plain(await t.query().select({ id: "id", twice: "x * 2", up: "upper(cat)" }).limit(20).toArray()));
  await both("takeOffsets-style filter on _rowoffset is a scan either way", lt, rt,
    async (t) => plain(await t.query().where("id IN (3, 5, 250)").select(["id", "cat"]).toArray()));
  await both("withRowId", lt, rt,
    async (t) => plain(await t.query().where("id < 5").select(["id"]).withRowId().toArray()));

  // --- exact vector search ---
  const q = [1, -2, 3, 0.5];
  const q2 = [-4, 4, 0, 1];
  await both("vector search l2 (default)", lt, rt,
    async (t) => await t.search(q).limit(10).select(["id"]).toArray(), sameSearch);
  for (const dt of ["cosine", "dot"]) {
    await both(`vector search ${dt}`, lt, rt,
      async (t) => await t.vectorSearch(q).distanceType(dt).limit(7).select(["id"]).toArray(), sameSearch);
  }
  await both("vector search with a prefilter", lt, rt,
    async (t) => await t.vectorSearch(q).where("cat = 'b'").limit(8).select(["id"]).toArray(), sameSearch);
  await both("vector search with a postfilter", lt, rt,
    async (t) => await t.vectorSearch(q).where("cat = 'b'").postfilter().limit(8).select(["id"]).toArray(), sameSearch);
  await both("vector search with a distance range", lt, rt,
    async (t) => await t.vectorSearch(q).distanceRange(50, 200).limit(50).select(["id"]).toArray(), sameSearch);
  await both("several query vectors in one request (query_index)", lt, rt, async (t) => {
    const rows = await t.vectorSearch(q).addQueryVector(q2).limit(5).select(["id"]).toArray();
    return rows.map((r) => ({ qi: r.query_index, id: Number(r.id), d: r._distance }))
      .sort((a, b) => a.qi - b.qi || a.d - b.d || a.id - b.id);
  }, (a, b) => a.length === b.length && a.every((r, i) => r.qi === b[i].qi && r.id === b[i].id &&
    Math.abs(r.d - b[i].d) <= 1e-5 * Math.max(1, Math.abs(r.d))));
  const plan = await rt.query().where("id > 3").explainPlan();
  check("explainPlan answers a plan", typeof plan === "string" && plan.length > 0, plan);
  const analyzed = await rt.query().where("id > 3").analyzePlan();
  check("analyzePlan answers a plan with rows", typeof analyzed === "string" && /rows/i.test(analyzed), analyzed);
  await fails("a filter naming no column is invalid input (400, not retried)", /400|invalid/i,
    () => rt.query().where("no_such_column > 1").toArray());
  await fails("bad SQL is invalid input (400, not retried)", /400|invalid/i, () => rt.query().where("id >").toArray());
  await fails("a query vector of the wrong length is invalid input", /400|invalid|dimension/i,
    () => rt.search([1, 2]).limit(3).toArray());

  // --- writes ---
  await both("add", lt, rt, async (t) => {
    await t.add(tableOf(rowsOf(300, 120)));
    return [await t.countRows(), await t.version()];
  });
  await both("update with SQL values", lt, rt, async (t) => {
    const r = await t.update({ where: "id >= 280 AND id < 320", valuesSql: { x: "x * 2 + 1", text: "upper(text)" } });
    return [r?.rowsUpdated ?? null, await t.version()];
  });
  await both("update with values", lt, rt, async (t) => {
    const r = await t.update({ where: "id = 7", values: { cat: "z" } });
    return [r?.rowsUpdated ?? null];
  });
  await both("delete", lt, rt, async (t) => {
    const r = await t.delete("id % 5 = 0 OR cat = 'z'");
    return [r?.numDeletedRows ?? null, await t.countRows(), await t.version()];
  });
  await both("rows after the writes", lt, rt, async (t) => plain(byId(await t.query().toArray())));
  // merge_insert/ (an uncompressed Arrow stream; the whens as query parameters).
  const changed = (rows, x) => rows.map((r) => ({ ...r, x }));
  await both("mergeInsert upsert (update all, insert all)", lt, rt, async (t) => {
    const r = await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
      .execute(tableOf([...changed(rowsOf(100, 20), 999), ...rowsOf(5000, 4)]));
    return [r.numInsertedRows, r.numUpdatedRows, r.numDeletedRows, await t.countRows(),
      plain(byId(await t.query().where("x = 999 OR id >= 5000").toArray()))];
  });
  await both("mergeInsert with a condition on source and target", lt, rt, async (t) => {
    const r = await t.mergeInsert("id").whenMatchedUpdateAll({ where: "target.x < source.x" })
      .execute(tableOf([...changed(rowsOf(200, 10), 30), ...changed(rowsOf(210, 10), 1)]));
    return [r.numUpdatedRows, r.numInsertedRows, plain(byId(await t.query().where("id >= 200 AND id < 220").toArray()))];
  });
  await both("mergeInsert insert-if-not-exists keeps duplicates of new keys", lt, rt, async (t) => {
    const r = await t.mergeInsert("id").whenNotMatchedInsertAll()
      .execute(tableOf([...rowsOf(1, 3), ...rowsOf(6000, 2), ...rowsOf(6000, 1)]));
    return [r.numInsertedRows, r.numUpdatedRows, await t.countRows("id >= 6000")];
  });
  await both("mergeInsert deleting what the source lacks (with a filter)", lt, rt, async (t) => {
    const r = await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedBySourceDelete({ where: "id >= 5000" })
      .execute(tableOf(rowsOf(5000, 2)));
    return [r.numDeletedRows, r.numUpdatedRows, await t.countRows(), await t.version()];
  });
  await fails("a merge whose source matches one target row twice is refused (400, Lance's message)",
    /Ambiguous merge inserts/i,
    () => rt.mergeInsert("id").whenMatchedUpdateAll().execute(tableOf([...rowsOf(1, 1), ...rowsOf(1, 1)])));
  await both("rows after the merges", lt, rt, async (t) => plain(byId(await t.query().toArray())));

  await both("add with mode overwrite", lt, rt, async (t) => {
    await t.add(tableOf(rowsOf(1000, 50)), { mode: "overwrite" });
    return [await t.countRows(), plain(byId(await t.query().select(["id"]).toArray()))];
  });

  // --- versions, checkout, tags, restore ---
  // The summary Lance keeps per version, but the bytes (quiver's data files are its own).
  await both("listVersions (numbers and summaries)", lt, rt, async (t) => (await t.listVersions()).map((v) => {
    const { total_files_size, ...summary } = v.metadata;
    return [v.version, Object.entries(summary).sort(), total_files_size > 0];
  }));
  const rv = await rt.listVersions();
  check("listVersions answers timestamps", rv.every((v) => v.timestamp instanceof Date && !Number.isNaN(v.timestamp.getTime())),
    brief(rv));
  await both("checkout an old version", lt, rt, async (t) => {
    await t.checkout(2);
    const n = await t.countRows();
    const v = await t.version();
    await t.checkoutLatest();
    return [n, v, await t.countRows()];
  });
  await both("tags create / list / getVersion / checkout(tag) / update / delete", lt, rt, async (t) => {
    const tags = await t.tags();
    await tags.create("v1", 1);
    await tags.create("v3", 3);
    const listed = Object.entries(await tags.list()).map(([k, v]) => [k, v.version]).sort();
    const v1 = await tags.getVersion("v1");
    await t.checkout("v3");
    const n3 = await t.countRows();
    await t.checkoutLatest();
    await tags.update("v1", 2);
    const v1b = await tags.getVersion("v1");
    await tags.delete("v3");
    return [listed, v1, n3, v1b, Object.keys(await tags.list()).sort()];
  });
  await fails("a tag that exists already is refused at once (not retried)", /already exists|400/i,
    async () => (await rt.tags()).create("v1", 1));
  await both("restore an old version", lt, rt, async (t) => {
    await t.checkout(2);
    await t.restore();
    return [await t.countRows(), await t.version()];
  });
  await both("stats", lt, rt, async (t) => {
    const s = await t.stats();
    return [s.numRows, s.fragmentStats?.numFragments];
  });

  // --- schema evolution ---
  await both("addColumns from SQL (types and nullability as DataFusion's)", lt, rt, async (t) => {
    await t.addColumns([{ name: "twice", valueSql: "id * 2" }, { name: "shout", valueSql: "upper(cat)" },
      { name: "k", valueSql: "'k'" }, { name: "big", valueSql: "x > 100" }, { name: "half", valueSql: "x / 2" }]);
    return [schemaOf(await t.schema()), plain(byId(await t.query().toArray()))];
  });
  await both("alterColumns changing a type (the column rewritten)", lt, rt, async (t) => {
    await t.alterColumns([{ path: "twice", dataType: new A.Int32() }]);
    return [schemaOf(await t.schema()), plain(byId(await t.query().select(["id", "twice"]).toArray()))];
  });
  await both("alterColumns rename + nullable", lt, rt, async (t) => {
    await t.alterColumns([{ path: "text", rename: "label" }, { path: "id", nullable: true }]);
    return schemaOf(await t.schema());
  });
  await both("dropColumns", lt, rt, async (t) => {
    await t.dropColumns(["cat"]);
    return [schemaOf(await t.schema()), plain(byId(await t.query().limit(5).toArray()))];
  });

  // --- the database: namespaces, rename, drop (remote only: the embedded database has neither) ---
  await remote.createNamespace(["ns1"]);
  const nt = await remote.createTable("inner", tableOf(rowsOf(0, 10)), ["ns1"]);
  check("a table in a namespace", (await nt.countRows()) === 10);
  check("tableNames of a namespace", same(await remote.tableNames(["ns1"]), ["inner"]), brief(await remote.tableNames(["ns1"])));
  check("the root lists its own tables only", same(await remote.tableNames(), ["empty", "t1"]), brief(await remote.tableNames()));
  const page = await remote.tableNames({ startAfter: "empty", limit: 5 });
  check("tableNames startAfter", same(page, ["t1"]), brief(page));
  await remote.renameTable("empty", "renamed");
  check("renameTable", same(await remote.tableNames(), ["renamed", "t1"]), brief(await remote.tableNames()));
  await remote.dropTable("renamed");
  check("dropTable", same(await remote.tableNames(), ["t1"]), brief(await remote.tableNames()));
  await fails("dropTable of a missing table is 404", /404|not found/i, () => remote.dropTable("renamed"));

  // quiver's own answers on the wire: the dialect headers.
  const r = await fetch(`${server.url}/v1/table/t1/describe/`, {
    method: "POST", headers: { "x-api-key": API_KEY, "x-lancedb-database": "default" },
  });
  const body = await r.json();
  check("describe/ answers phalanx-version and Lance's type names", r.headers.get("phalanx-version") === "0.4.0" &&
    body.schema?.fields?.some((x) => x.type?.type === "double"), brief(body));
}

// More than 1M rows on a client that may run several partitions: the client sends
// multipart_write/create, one insert/?upload_id= per partition, then complete.
async function multipart(remote, server) {
  const N = 2_100_000;
  const small = new A.Schema([f("id", new A.Int64(), false), f("x", new A.Float64())]);
  const ids = BigInt64Array.from({ length: N }, (_, i) => BigInt(i));
  const xs = Float64Array.from({ length: N }, (_, i) => i / 2);
  const data = A.tableFromArrays({ id: ids, x: xs });
  const t = await remote.createTable("big", lancedb.makeArrowTable([{ id: 0n, x: 0 }], { schema: small }));
  await t.add(data);
  check("a multipart add of 2.1M rows commits every row once", (await t.countRows()) === N + 1,
    String(await t.countRows()));
  check("… in one version", (await t.version()) === 2, String(await t.version()));
  check("… and the rows are the ones sent", (await t.countRows("id = 1999999 AND x = 999999.5")) === 1);
  const completed = /upload completed.* parts=(\d+)/.exec(server.err);
  check("… through multipart_write (create, parts, complete)", completed && Number(completed[1]) >= 1,
    server.err.split("\n").filter((l) => /upload/.test(l)).join("\n"));
}

main().then(() => finish(), (e) => {
  check("no unexpected exception", false, e.stack ?? String(e));
  finish();
});
