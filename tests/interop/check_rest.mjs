// End to end: `quiver serve` as the catalog of the real LanceDB 0.31 REST namespace client
// (`connectNamespace("rest", {uri})`). Every user workflow of
// docs/reference/lancedb-rest-trace.md §4 is run and its data read back: namespaces
// (nested, properties, paging, modes, errors), table create/open/append/overwrite, queries,
// vector and full-text search, indices, versions, tags, branches, update/delete/merge-insert,
// schema changes, optimize/stats/restore, table listing with paging, rename, drop, drop-all and
// namespace drop (restrict, skip, cascade). The server must shut down cleanly on SIGTERM.
//
//   node check_rest.mjs <quiver binary> <fixtures dir> <default|managed|auth-key|auth-bearer>
//
// `managed` starts the server with --managed-versioning=true (the client then commits every
// version through the server) and additionally checks that no staging manifests are left in any
// `_versions/` directory under the root. The fixtures dir is not used (the argument keeps the
// interop scripts' calling convention).
//
// `auth-key` and `auth-bearer` start the server with --auth and run every workflow as an ordinary
// project admin (user:ci holds `admin` on project:default, and is no server admin), bootstrapped
// offline with `quiver access create-key` / `quiver access grant`. LanceDB sends the credential
// through the `headers` option of connectNamespace: `x-api-key: qv_...` (auth-key), or
// `Authorization: Bearer <RS256 JWT>` (auth-bearer; the script makes an RSA key pair, serves its
// public half to --jwks-file and mints the tokens with node's crypto). The `auth` workflow then
// checks what LanceDB sees without credentials, with wrong ones, as a second principal that may
// only read one table, with a revoked API key and (bearer) with expired or foreign tokens.
//
// Prints one line per check, prefixed by its workflow, and a closing "N passed, N failed";
// exits 1 if any check failed. On failure the server's stderr (its request log) is echoed.
// QV_KEEP_SCRATCH=1 keeps the scratch directory (server root and log).
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import { lancedb, arrow, mulberry32, idTextVectorTable } from "./lib.mjs";
import {
  parseArgs, createReport, quiverRunner, scratch, startQuiverServe, stopQuiverServe, stoppedCleanly, finishScratch,
} from "./checks.mjs";

const USAGE = "node check_rest.mjs <quiver binary> <fixtures dir> <default|managed|auth-key|auth-bearer>";
const { quiver, rest } = parseArgs(USAGE);
const mode = rest[0] ?? "default";
if (!["default", "managed", "auth-key", "auth-bearer"].includes(mode)) {
  console.error(`usage: ${USAGE}`);
  process.exit(2);
}
const MANAGED = mode === "managed";
const AUTH = mode.startsWith("auth-");
const BEARER = mode === "auth-bearer";
const quiverRun = quiverRunner(quiver);

const report = createReport();
let failures = 0;
let current = "setup";
function check(label, ok, detail) {
  if (!ok) failures++;
  report.check(`[${mode}] ${current}: ${label}`, ok, detail);
}

const space = scratch("qv-rest-");
const ROOT = path.join(space.work, "root");
const STARTUP_TIMEOUT_MS = 20_000;
const WORKFLOW_TIMEOUT_MS = 90_000;
const SHUTDOWN_TIMEOUT_MS = 15_000;

// ---------------------------------------------------------------------------------------------
// Data

const DIM = 4;
function vectorType(dim) {
  return new arrow.FixedSizeList(dim, new arrow.Field("item", new arrow.Float32(), true));
}
function schemaOf(dim = DIM) {
  return new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("text", new arrow.Utf8(), true),
    new arrow.Field("vector", vectorType(dim), true),
  ]);
}

// The vector of row `id`: `dim` pseudo-random floats in [0,1), a function of (id, dim) only.
function vecOf(id, dim = DIM) {
  const rnd = mulberry32(id * 7919 + dim);
  return Array.from({ length: dim }, () => rnd());
}
const textOf = (id) => `text ${id}`;

// An Arrow table of rows with the given ids: id Int64, text Utf8, vector FixedSizeList[dim]<Float32>.
function rows(ids, { dim = DIM, text = textOf } = {}) {
  const schema = schemaOf(dim);
  const n = ids.length;
  const idArr = new BigInt64Array(ids.map((i) => BigInt(i)));
  const vec = new Float32Array(n * dim);
  ids.forEach((id, i) => vec.set(vecOf(id, dim), i * dim));
  return idTextVectorTable(schema, idArr, ids.map(text), vec);
}
const range = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);

// ---------------------------------------------------------------------------------------------
// Helpers for checks

// JSON with bigints as strings and the keys of plain objects sorted (property maps come back
// from the native client in hash order).
const j = (v) =>
  JSON.stringify(v, (_k, x) => {
    if (typeof x === "bigint") return x.toString();
    if (x && typeof x === "object" && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype) {
      return Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]]));
    }
    return x;
  });
function eq(label, actual, expected) {
  check(label, j(actual) === j(expected), `got ${j(actual)}, want ${j(expected)}`);
}
const msgOf = (e) => String(e?.message ?? e).split("\n")[0].slice(0, 400);

// Expects fn() to reject with a message matching re.
async function rejects(label, fn, re) {
  try {
    const v = await fn();
    check(label, false, `no error (returned ${j(v)?.slice(0, 200)})`);
  } catch (e) {
    check(label, re.test(String(e?.message ?? e)), `error does not match ${re}: ${msgOf(e)}`);
  }
}
// Runs fn() and reports a failed check if it throws; returns its value (undefined on error).
async function step(label, fn) {
  try {
    const v = await fn();
    check(label, true);
    return v;
  } catch (e) {
    check(label, false, msgOf(e));
    return undefined;
  }
}

// Sorted ids (numbers) of the rows matching `where` (all rows without it).
async function idsOf(tbl, where) {
  let q = tbl.query().select(["id"]);
  if (where) q = q.where(where);
  const out = (await q.toArray()).map((r) => Number(r.id));
  return out.sort((a, b) => a - b);
}
// {id: value of `col`} for the rows matching `where`.
async function columnById(tbl, col, where) {
  let q = tbl.query().select(["id", col]);
  if (where) q = q.where(where);
  const out = {};
  for (const r of await q.toArray()) out[Number(r.id)] = typeof r[col] === "bigint" ? Number(r[col]) : r[col];
  return out;
}
const fieldNames = async (tbl) => (await tbl.schema()).fields.map((f) => f.name);
const sorted = (a) => [...a].sort();

// ---------------------------------------------------------------------------------------------
// Server

let server = null; // the handle of checks.mjs's startQuiverServe: {child, args, url, out, err, exited}

function startServer() {
  const args = ["serve", "--root", ROOT, "--listen", "127.0.0.1:0"];
  if (MANAGED) args.push("--managed-versioning=true");
  if (AUTH) args.push("--auth");
  if (BEARER) args.push("--jwks-file", JWKS_FILE, "--jwt-issuer", JWT_ISSUER, "--jwt-audience", JWT_AUDIENCE);
  server = startQuiverServe(quiver, args, {
    logFile: path.join(space.work, "server.log"),
    startupTimeoutMs: STARTUP_TIMEOUT_MS,
  });
  return server.ready;
}

// SIGTERM, then wait; SIGKILL if it does not exit in time. Returns {code, signal, timedOut}.
const stopServer = () => stopQuiverServe(server, { timeoutMs: SHUTDOWN_TIMEOUT_MS });

// ---------------------------------------------------------------------------------------------
// Credentials (auth modes)

// The project admin every workflow runs as, and the second principal of the `auth` workflow.
const ADMIN = "user:ci";
const READER = "user:reader";
const JWKS_FILE = path.join(space.work, "jwks.json");
const JWT_ISSUER = "https://issuer.quiver.test";
const JWT_AUDIENCE = "quiver-interop";
const JWT_KID = "qv-interop-1";

const b64url = (buf) => Buffer.from(buf).toString("base64url");
// An RSA-2048 signing key and its JWK (kty, kid, alg, use, n, e).
function rsaSigner(kid) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const { kty, n, e } = publicKey.export({ format: "jwk" });
  return { kid, privateKey, jwk: { kty, kid, alg: "RS256", use: "sig", n, e } };
}
const signer = BEARER ? rsaSigner(JWT_KID) : null;
// A compact RS256 JWT for principal user:<sub>, valid for an hour unless `claims` says otherwise.
function mintJwt(sub, claims = {}, { key = signer, header = {} } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const h = b64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid: key.kid, ...header }));
  const p = b64url(JSON.stringify({ sub, iss: JWT_ISSUER, aud: JWT_AUDIENCE, iat: now, exp: now + 3600, ...claims }));
  return `${h}.${p}.${b64url(crypto.sign("sha256", Buffer.from(`${h}.${p}`), key.privateKey))}`;
}
const subOf = (principal) => principal.replace(/^user:/, "");
const keyHeaders = (key) => ({ "x-api-key": key });
const bearerHeaders = (token) => ({ Authorization: `Bearer ${token}` });

// Request headers of the project admin (set by bootstrap()); none outside the auth modes.
let AUTH_HEADERS = {};
let readerHeaders = {};

// Before the server ever runs, on the fresh root (the CLI creates it): the offline CLI grants the
// admin `admin` on project:default and (with API keys) creates the admin's and the reader's keys;
// the reader's first grant is the operator's (a server admin's), made offline in the `auth` workflow.
function bootstrap() {
  if (BEARER) fs.writeFileSync(JWKS_FILE, JSON.stringify({ keys: [signer.jwk] }, null, 2));
  const g = quiverRun("access", "grant", ROOT, `${ADMIN}#admin@project:default`);
  check(`quiver access grant '${ADMIN}#admin@project:default'`, g.ok && g.out.includes("granted"), g.out);
  if (!g.ok) throw new Error("the offline grant failed");
  if (BEARER) {
    AUTH_HEADERS = bearerHeaders(mintJwt(subOf(ADMIN)));
    readerHeaders = bearerHeaders(mintJwt(subOf(READER)));
    return;
  }
  const isKey = (r) => r.ok && /^qv_\S+\n?$/.test(r.out);
  const k = quiverRun("access", "create-key", ROOT, "--principal", ADMIN);
  check(`quiver access create-key --principal ${ADMIN} prints a qv_ key on stdout`, isKey(k), k.out);
  const rk = quiverRun("access", "create-key", ROOT, "--principal", READER);
  check(`… and one for ${READER}`, isKey(rk), rk.out);
  if (!isKey(k) || !isKey(rk)) throw new Error("the offline key creation failed");
  AUTH_HEADERS = keyHeaders(k.out.trim());
  readerHeaders = keyHeaders(rk.out.trim());
}

// A raw request to the server, the way the client sends it (for the few facts the LanceDB API
// does not report: the table's location and the managed-versioning flag; and the access API).
function tableIdPath(ns, name) {
  return encodeURIComponent([...ns, name].join("$"));
}
async function rawPost(pathAndQuery, body, headers = AUTH_HEADERS) {
  return rawRequest("POST", pathAndQuery, body === null ? "null" : JSON.stringify(body), headers);
}
async function rawGet(pathAndQuery, headers = AUTH_HEADERS) {
  return rawRequest("GET", pathAndQuery, undefined, headers);
}
async function rawRequest(method, pathAndQuery, body, headers) {
  const r = await fetch(`${server.url}${pathAndQuery}`, {
    method,
    headers: body === undefined ? { ...headers } : { "content-type": "application/json", ...headers },
    body,
  });
  const text = await r.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // leave null
  }
  return { status: r.status, text, json };
}
async function rawDescribe(ns, name) {
  return rawPost(`/v1/table/${tableIdPath(ns, name)}/describe?delimiter=%24`, { id: [...ns, name] });
}
// Files (not directories) left under dir; 0 when it is gone.
function filesUnder(dir) {
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}
// The directory a location (absolute path or file:// URI) names.
function locationDir(loc) {
  if (typeof loc !== "string") return null;
  if (loc.startsWith("file://")) return decodeURIComponent(new URL(loc).pathname).replace(/\/+$/, "");
  return loc.replace(/\/+$/, "");
}

// ---------------------------------------------------------------------------------------------
// Workflows. Each uses its own namespaces (prefix = workflow) so that one failing does not
// break the next; root-namespace tables are only made by root_namespace_tables.

let db;
// In the auth modes every connection carries a credential: the admin's unless told otherwise.
const connect = (headers = AUTH_HEADERS) => connectAs(AUTH ? headers : null);
// headers null: a connection without any.
const connectAs = (headers) =>
  lancedb.connectNamespace("rest", headers ? { uri: server.url, headers } : { uri: server.url });
// How LanceDB reports the server's 401 (code 16: "Unauthenticated: <error>") and 403 (code 15: it
// prints "Permission denied: <error>", its own wording, not the server's title).
const UNAUTHENTICATED = /\b401\b|Unauthenticated/;
const DENIED = /\b403\b|permission ?denied/i;

const workflows = {
  async namespaces() {
    const created = await db.createNamespace(["ns_a"], { properties: { owner: "qa", purpose: "interop" } });
    eq("createNamespace returns the properties", created?.properties ?? null, { owner: "qa", purpose: "interop" });
    for (const c of ["child", "child2", "child3"]) await db.createNamespace(["ns_a", c]);
    check("nested children created", true);
    await db.createNamespace(["ns_a", "child", "grandchild"]);

    const rootList = await db.listNamespaces();
    check("root list has ns_a", rootList.namespaces.includes("ns_a"), j(rootList));
    check("root list has no nested names", !rootList.namespaces.some((n) => n.startsWith("child")), j(rootList));
    eq("list ns_a = its children, sorted", (await db.listNamespaces(["ns_a"])).namespaces, ["child", "child2", "child3"]);
    eq("list ns_a/child", (await db.listNamespaces(["ns_a", "child"])).namespaces, ["grandchild"]);
    eq("list a leaf namespace is empty", (await db.listNamespaces(["ns_a", "child2"])).namespaces, []);

    const p1 = await db.listNamespaces(["ns_a"], { limit: 2 });
    eq("limit 2: first page", p1.namespaces, ["child", "child2"]);
    check("limit 2: a page token is returned", typeof p1.pageToken === "string" && p1.pageToken.length > 0, j(p1));
    if (p1.pageToken) {
      const p2 = await db.listNamespaces(["ns_a"], { limit: 2, pageToken: p1.pageToken });
      eq("limit 2 + pageToken: second page", p2.namespaces, ["child3"]);
      check("last page: no further token (or an empty next page)",
            !p2.pageToken || (await db.listNamespaces(["ns_a"], { limit: 2, pageToken: p2.pageToken })).namespaces.length === 0,
            j(p2));
    }

    eq("describe returns the properties", (await db.describeNamespace(["ns_a"])).properties ?? null,
       { owner: "qa", purpose: "interop" });
    await step("describe a nested namespace", () => db.describeNamespace(["ns_a", "child", "grandchild"]));
    await rejects("describe a missing namespace → not found", () => db.describeNamespace(["ns_missing"]), /not found/i);
    await rejects("list a missing namespace → not found", () => db.listNamespaces(["ns_missing"]), /not found/i);

    await rejects("create an existing namespace → already exists", () => db.createNamespace(["ns_a"]), /already exists/i);
    await rejects("create an existing nested namespace → already exists",
                  () => db.createNamespace(["ns_a", "child"]), /already exists/i);
    await step("create existing with mode exist_ok succeeds",
               () => db.createNamespace(["ns_a"], { mode: "exist_ok", properties: { other: "x" } }));
    eq("exist_ok keeps the existing properties", (await db.describeNamespace(["ns_a"])).properties ?? null,
       { owner: "qa", purpose: "interop" });
    await step("exist_ok on a new namespace creates it", () => db.createNamespace(["ns_eo"], { mode: "exist_ok" }));
    check("… and it is listed", (await db.listNamespaces()).namespaces.includes("ns_eo"));

    await step("create with mode create", () => db.createNamespace(["ns_ow"], { mode: "create", properties: { a: "1" } }));
    await step("create again with mode overwrite", () => db.createNamespace(["ns_ow"], { mode: "overwrite", properties: { b: "2" } }));
    eq("overwrite replaced the properties", (await db.describeNamespace(["ns_ow"])).properties ?? null, { b: "2" });
    await step("drop with mode fail + behavior restrict", () => db.dropNamespace(["ns_ow"], { mode: "fail", behavior: "restrict" }));
    check("dropped namespace is no longer listed", !(await db.listNamespaces()).namespaces.includes("ns_ow"));
    await rejects("describe the dropped namespace → not found", () => db.describeNamespace(["ns_ow"]), /not found/i);

    await rejects("create under a missing parent → not found", () => db.createNamespace(["ns_nope", "x"]), /not found/i);
    check("nothing was created for it", !(await db.listNamespaces()).namespaces.includes("ns_nope"));
  },

  async create_and_open_tables() {
    await db.createNamespace(["ct"]);
    await db.createNamespace(["ct", "inner"]);
    const a = await db.createTable("items", rows([1, 2, 3]), ["ct"]);
    const b = await db.createTable("items", rows([10, 11, 12, 13]), ["ct", "inner"]);
    eq("createTable in a namespace: rows", await idsOf(a), [1, 2, 3]);
    eq("createTable in a nested namespace: rows", await idsOf(b), [10, 11, 12, 13]);
    eq("schema field names", await fieldNames(a), ["id", "text", "vector"]);
    const vf = (await a.schema()).fields[2];
    check("vector is FixedSizeList[4]<Float32>",
          arrow.DataType.isFixedSizeList(vf.type) && vf.type.listSize === DIM, String(vf.type));
    eq("text values", await columnById(a, "text"), { 1: "text 1", 2: "text 2", 3: "text 3" });
    eq("version 1 after create", await a.version(), 1);

    const oa = await db.openTable("items", ["ct"]);
    eq("openTable reads the namespace's table", await idsOf(oa), [1, 2, 3]);
    const ob = await db.openTable("items", ["ct", "inner"]);
    eq("openTable reads the nested table (same name, other data)", await idsOf(ob), [10, 11, 12, 13]);
    const vals = (await ob.query().where("id = 12").select(["vector"]).toArray())[0]?.vector;
    const got = vals ? Array.from(vals.toArray ? vals.toArray() : vals) : null;
    check("vector values read back", got && got.every((x, i) => Math.abs(x - vecOf(12)[i]) < 1e-6), j(got));

    const db2 = await connect();
    eq("a second connection sees the same rows", await idsOf(await db2.openTable("items", ["ct", "inner"])),
       [10, 11, 12, 13]);

    const e = await db.createEmptyTable("empty", schemaOf(), ["ct"]);
    eq("createEmptyTable: 0 rows", await e.countRows(), 0);
    eq("createEmptyTable: schema", await fieldNames(e), ["id", "text", "vector"]);
    await e.add(rows([5, 6]));
    eq("rows added to the empty table", await idsOf(await db.openTable("empty", ["ct"])), [5, 6]);

    await rejects("createTable on an existing table → already exists",
                  () => db.createTable("items", rows([99]), ["ct"]), /already exists/i);
    eq("… and the existing data is untouched", await idsOf(await db.openTable("items", ["ct"])), [1, 2, 3]);
    const ex = await db.createTable("items", rows([98]), ["ct"], { mode: "create", existOk: true });
    eq("createTable existOk returns the existing table", await idsOf(ex), [1, 2, 3]);
    const ow = await db.createTable("items", rows([7, 8]), ["ct"], { mode: "overwrite" });
    eq("createTable mode overwrite replaces the data", await idsOf(ow), [7, 8]);
    eq("… seen by openTable", await idsOf(await db.openTable("items", ["ct"])), [7, 8]);

    await rejects("createTable in a missing namespace → not found",
                  () => db.createTable("t", rows([1]), ["ct_missing"]), /not found/i);
    await rejects("openTable on a missing table → not found", () => db.openTable("does_not_exist", ["ct"]), /not found/i);
    await rejects("openTable in a missing namespace → error", () => db.openTable("items", ["ct_missing"]), /not found/i);

    const d = await rawDescribe(["ct"], "items");
    const dir = locationDir(d.json?.location);
    check("describe gives a location inside --root", d.status === 200 && !!dir && dir.startsWith(ROOT + "/"),
          `${d.status} ${d.text.slice(0, 300)}`);
    check(`describe says managed_versioning=${MANAGED}`, (d.json?.managed_versioning === true) === MANAGED,
          d.text.slice(0, 300));
    if (dir) check("the location holds the dataset", fs.existsSync(path.join(dir, "_versions")), dir);
  },

  async append_and_overwrite() {
    await db.createNamespace(["ao"]);
    const t = await db.createTable("t", rows(range(0, 5)), ["ao"]);
    await t.add(rows(range(5, 8)));
    eq("append: 8 rows", await t.countRows(), 8);
    eq("append: ids", await idsOf(t), range(0, 8));
    eq("append: version 2", await t.version(), 2);
    await t.add(rows([100, 101]), { mode: "overwrite" });
    eq("add overwrite: only the new rows", await idsOf(t), [100, 101]);
    eq("add overwrite: version 3", await t.version(), 3);
    eq("reopened: same rows", await idsOf(await db.openTable("t", ["ao"])), [100, 101]);
  },

  async query_and_search() {
    await db.createNamespace(["qs"]);
    await db.createNamespace(["qs", "deep"]);
    const t = await db.createTable("docs", rows(range(0, 20)), ["qs", "deep"]);
    eq("countRows", await t.countRows(), 20);
    eq("countRows with a filter", await t.countRows("id >= 15"), 5);
    const r = await t.query().where("id < 10").limit(3).toArray();
    check("query().where().limit(): 3 rows, all matching",
          r.length === 3 && r.every((x) => Number(x.id) < 10), j(r.map((x) => x.id)));
    eq("query().where() on text", await idsOf(t, "text = 'text 7'"), [7]);
    const near = await t.vectorSearch(vecOf(13)).limit(1).toArray();
    check("vectorSearch finds the row itself first",
          near.length === 1 && Number(near[0].id) === 13 && near[0]._distance < 1e-6,
          j(near.map((x) => [x.id, x._distance])));
    const near3 = await t.vectorSearch(vecOf(4)).where("id > 10").limit(3).toArray();
    check("vectorSearch with a filter", near3.length === 3 && near3.every((x) => Number(x.id) > 10),
          j(near3.map((x) => x.id)));
  },

  async indices() {
    await db.createNamespace(["ix"]);
    const text = (i) => (i === 13 ? "zebra crossing" : i % 2 ? "alpha bravo" : "charlie delta");
    const t = await db.createTable("docs", rows(range(0, 20), { text }), ["ix"]);
    await t.createIndex("id", { config: lancedb.Index.btree() });
    await t.createIndex("text", { config: lancedb.Index.fts() });
    const idx = await t.listIndices();
    eq("listIndices: names", sorted(idx.map((i) => i.name)), ["id_idx", "text_idx"]);
    eq("listIndices: columns", Object.fromEntries(idx.map((i) => [i.name, i.columns])), { id_idx: ["id"], text_idx: ["text"] });
    check("id_idx is a BTree", idx.find((i) => i.name === "id_idx")?.indexType === "BTree", j(idx.map((i) => i.indexType)));
    const st = await t.indexStats("id_idx");
    check("indexStats(id_idx): 20 indexed, 0 unindexed",
          st && st.numIndexedRows === 20 && st.numUnindexedRows === 0, j(st));
    eq("filter using the BTREE", await idsOf(t, "id = 7"), [7]);
    const fts = await t.search("zebra", "fts").select(["id", "text"]).limit(10).toArray();
    eq("full-text search finds the one matching row", fts.map((x) => Number(x.id)), [13]);
    const fts2 = await t.query().fullTextSearch("alpha").select(["id"]).limit(100).toArray();
    eq("fullTextSearch: all odd ids but 13", fts2.map((x) => Number(x.id)).sort((a, b) => a - b),
       range(0, 20).filter((i) => i % 2 && i !== 13));
    await t.dropIndex("id_idx");
    eq("dropIndex: only text_idx is left", (await t.listIndices()).map((i) => i.name), ["text_idx"]);
    const re = await db.openTable("docs", ["ix"]);
    eq("reopened: indices", (await re.listIndices()).map((i) => i.name), ["text_idx"]);

    // IVF_PQ needs >= 256 rows to train.
    const v = await db.createTable("vecs", rows(range(0, 512), { dim: 16 }), ["ix"]);
    const t0 = Date.now();
    await v.createIndex("vector", { config: lancedb.Index.ivfPq({ numPartitions: 2, numSubVectors: 4 }) });
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    const vi = (await v.listIndices()).find((i) => i.name === "vector_idx");
    check(`IVF_PQ index created (${secs} s)`, vi?.indexType === "IvfPq", j(vi));
    const vs = await v.indexStats("vector_idx");
    check("indexStats(vector_idx): 512 indexed", vs?.numIndexedRows === 512 && vs?.indexType === "IVF_PQ", j(vs));
    const hit = await v.vectorSearch(vecOf(100, 16)).nprobes(2).refineFactor(20).limit(1).toArray();
    check("ANN search finds the row itself", Number(hit[0]?.id) === 100, j(hit.map((x) => [x.id, x._distance])));
  },

  async versions_and_tags() {
    await db.createNamespace(["vt"]);
    const t = await db.createTable("t", rows(range(0, 3)), ["vt"]);
    await t.add(rows(range(3, 5)));
    await t.add(rows(range(5, 7)));
    await t.delete("id = 0");
    const vs = await t.listVersions();
    eq("listVersions: 1..4", vs.map((v) => v.version), [1, 2, 3, 4]);
    check("listVersions: timestamps are dates", vs.every((v) => v.timestamp instanceof Date && !isNaN(v.timestamp)));
    await t.checkout(1);
    eq("checkout(1): version", await t.version(), 1);
    eq("checkout(1): 3 rows", await idsOf(t), [0, 1, 2]);
    await t.checkout(3);
    eq("checkout(3): 7 rows", await t.countRows(), 7);
    await t.checkoutLatest();
    eq("checkoutLatest: version 4", await t.version(), 4);
    eq("checkoutLatest: rows", await idsOf(t), range(1, 7));
    const pinned = await db.openTable("t", ["vt"], { version: 2 });
    eq("openTable({version: 2})", await idsOf(pinned), range(0, 5));

    const tags = await t.tags();
    await tags.create("stable", 1);
    await tags.create("candidate", 2);
    await tags.create("temp", 3);
    const l1 = await tags.list();
    eq("tags.list", Object.fromEntries(Object.keys(l1).sort().map((k) => [k, l1[k].version])),
       { candidate: 2, stable: 1, temp: 3 });
    eq("tags.getVersion", await tags.getVersion("candidate"), 2);
    await tags.update("candidate", 4);
    eq("tags.update", await tags.getVersion("candidate"), 4);
    await tags.delete("temp");
    eq("tags.delete", sorted(Object.keys(await tags.list())), ["candidate", "stable"]);
    await t.checkout("stable");
    eq("checkout(tag): rows at v1", await idsOf(t), [0, 1, 2]);
    await t.checkoutLatest();
    const again = await db.openTable("t", ["vt"]);
    eq("tags seen through a new handle", sorted(Object.keys(await (await again.tags()).list())), ["candidate", "stable"]);
    await rejects("getVersion of a deleted tag → error", () => tags.getVersion("temp"), /./);
  },

  async branches() {
    await db.createNamespace(["br"]);
    const main = await db.createTable("t", rows(range(0, 5)), ["br"]);
    await main.add(rows(range(5, 10)));
    const dev = await (await main.branches()).create("dev");
    eq("branch handle reports its branch", dev.currentBranch(), "dev");
    await dev.add(rows(range(100, 103)));
    eq("write on the branch", await dev.countRows(), 13);
    eq("main unchanged (same handle)", await main.countRows(), 10);
    eq("main unchanged (reopened)", await idsOf(await db.openTable("t", ["br"])), range(0, 10));
    const list = await (await main.branches()).list();
    check("branches.list has dev from main v2",
          Object.keys(list).includes("dev") && Number(list.dev.parentVersion) === 2, j(Object.keys(list)));
    const opened = await db.openTable("t", ["br"], { branch: "dev" });
    eq("openTable({branch}) reads the branch", await idsOf(opened), [...range(0, 10), 100, 101, 102]);
    const co = await (await main.branches()).checkout("dev");
    eq("branches.checkout reads the branch", await co.countRows(), 13);
    await main.add(rows([50]));
    eq("main moves on independently", await main.countRows(), 11);
    eq("… and the branch does not see it", await (await db.openTable("t", ["br"], { branch: "dev" })).countRows(), 13);
    await (await main.branches()).delete("dev");
    check("branches.delete", !Object.keys(await (await main.branches()).list()).includes("dev"));
    eq("main still intact", await (await db.openTable("t", ["br"])).countRows(), 11);
  },

  async update_delete_merge() {
    await db.createNamespace(["ud"]);
    const t = await db.createTable("t", rows(range(0, 10)), ["ud"]);
    const u = await t.update({ values: { text: "updated" }, where: "id < 3" });
    eq("update: rows updated", u?.rowsUpdated, 3);
    eq("update: only the matching rows", await idsOf(t, "text = 'updated'"), [0, 1, 2]);
    const d = await t.delete("id >= 8");
    check("delete returns a version", typeof d?.version === "number", j(d));
    eq("delete with a predicate", await idsOf(t), range(0, 8));
    const m = await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
      .execute(rows(range(6, 12), { text: () => "merged" }));
    check("mergeInsert: 2 updated, 4 inserted", m?.numUpdatedRows === 2 && m?.numInsertedRows === 4, j(m));
    eq("mergeInsert: ids", await idsOf(t), range(0, 12));
    const text = await columnById(await db.openTable("t", ["ud"]), "text");
    eq("mergeInsert: values", text, {
      0: "updated", 1: "updated", 2: "updated", 3: "text 3", 4: "text 4", 5: "text 5",
      6: "merged", 7: "merged", 8: "merged", 9: "merged", 10: "merged", 11: "merged",
    });
  },

  async schema_evolution() {
    await db.createNamespace(["se"]);
    const t = await db.createTable("t", rows(range(0, 6)), ["se"]);
    await t.addColumns([{ name: "id2", valueSql: "id * 2" }]);
    eq("addColumns: fields", await fieldNames(t), ["id", "text", "vector", "id2"]);
    eq("addColumns: values", await columnById(t, "id2"), { 0: 0, 1: 2, 2: 4, 3: 6, 4: 8, 5: 10 });
    await t.alterColumns([{ path: "text", rename: "label" }]);
    eq("alterColumns rename: fields", await fieldNames(t), ["id", "label", "vector", "id2"]);
    eq("alterColumns rename: values kept", (await columnById(t, "label", "id = 4"))[4], "text 4");
    await t.dropColumns(["vector"]);
    const re = await db.openTable("t", ["se"]);
    eq("dropColumns: fields (reopened)", await fieldNames(re), ["id", "label", "id2"]);
    eq("dropColumns: rows kept", await re.countRows(), 6);
    eq("versions 1..4", (await re.listVersions()).map((v) => v.version), [1, 2, 3, 4]);
  },

  async optimize_stats_restore() {
    await db.createNamespace(["op"]);
    const t = await db.createTable("t", rows(range(0, 10)), ["op"]);
    for (let k = 1; k <= 3; k++) await t.add(rows(range(k * 10, k * 10 + 10)));
    await t.delete("id % 2 = 0");
    const before = await t.stats();
    check("stats before optimize: 20 rows, 4 fragments",
          before.numRows === 20 && before.fragmentStats.numFragments === 4, j(before));
    const vBefore = await t.version();
    const o = await t.optimize();
    check("optimize compacted", o?.compaction?.fragmentsRemoved >= 4, j(o));
    const after = await t.stats();
    check("stats after optimize: 20 rows, 1 fragment",
          after.numRows === 20 && after.fragmentStats.numFragments === 1, j(after));
    eq("optimize kept the rows", await idsOf(t), range(1, 40).filter((i) => i % 2));
    check("optimize committed new versions", (await t.version()) > vBefore, String(await t.version()));

    const latest = await t.version();
    await t.checkout(1);
    await t.restore();
    eq("restore: a new latest version", await t.version(), latest + 1);
    eq("restore: the rows of v1", await idsOf(t), range(0, 10));
    const re = await db.openTable("t", ["op"]);
    eq("restore: seen by a new handle", await idsOf(re), range(0, 10));
    await re.add(rows([77]));
    eq("writable after restore", await re.countRows(), 11);
  },

  async table_names() {
    await db.createNamespace(["tn"]);
    await db.createNamespace(["tn", "sub"]);
    for (const n of ["c", "a", "e", "b", "d"]) await db.createTable(n, rows([n.charCodeAt(0)]), ["tn"]);
    await db.createTable("zz_nested", rows([1]), ["tn", "sub"]);
    eq("tableNames: all, sorted, direct children only", await db.tableNames(["tn"]), ["a", "b", "c", "d", "e"]);
    eq("tableNames limit 2", await db.tableNames(["tn"], { limit: 2 }), ["a", "b"]);
    eq("tableNames limit 2 startAfter b", await db.tableNames(["tn"], { limit: 2, startAfter: "b" }), ["c", "d"]);
    eq("tableNames startAfter d", await db.tableNames(["tn"], { startAfter: "d" }), ["e"]);
    eq("tableNames startAfter e (past the end)", await db.tableNames(["tn"], { startAfter: "e" }), []);
    eq("tableNames of the nested namespace", await db.tableNames(["tn", "sub"]), ["zz_nested"]);
    await db.createNamespace(["tn", "empty"]);
    eq("tableNames of an empty namespace", await db.tableNames(["tn", "empty"]), []);
    await rejects("tableNames of a missing namespace → not found", () => db.tableNames(["tn_missing"]), /not found/i);

    // No limit must mean "all of them": tableNames() does not follow page tokens, so a default
    // page size would truncate it silently.
    await db.createNamespace(["tn_many"]);
    const N = 130;
    const names = range(0, N).map((i) => `t${String(i).padStart(3, "0")}`);
    const t0 = Date.now();
    for (const n of names) await db.createEmptyTable(n, schemaOf(), ["tn_many"]);
    const got = await db.tableNames(["tn_many"]);
    check(`tableNames without a limit returns all ${N} (made in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
          j(got) === j(names), `got ${got.length}: ${j(got.slice(0, 3))}…${j(got.slice(-3))}`);
    await db.dropAllTables(["tn_many"]);
    eq("dropAllTables drops every one of them", await db.tableNames(["tn_many"]), []);
    await rejects("a dropped table no longer opens", () => db.openTable("t042", ["tn_many"]), /not found/i);
    await step("the emptied namespace drops (restrict)", () => db.dropNamespace(["tn_many"]));
  },

  async root_namespace_tables() {
    await db.createTable("root_b", rows([2]));
    await db.createTable("root_a", rows([1]));
    await db.createTable("root_c", rows([3, 33]));
    eq("root tableNames(): root tables only, sorted", await db.tableNames(), ["root_a", "root_b", "root_c"]);
    eq("root tableNames([]) is the same", await db.tableNames([]), ["root_a", "root_b", "root_c"]);
    eq("root limit 2", await db.tableNames({ limit: 2 }), ["root_a", "root_b"]);
    eq("root limit 2 startAfter root_a", await db.tableNames({ limit: 2, startAfter: "root_a" }), ["root_b", "root_c"]);
    eq("root openTable", await idsOf(await db.openTable("root_c")), [3, 33]);
    await db.renameTable("root_c", "root_d");
    eq("root rename: new name reads the rows", await idsOf(await db.openTable("root_d")), [3, 33]);
    eq("root rename: listing", await db.tableNames(), ["root_a", "root_b", "root_d"]);
    await db.dropTable("root_b");
    eq("root dropTable: listing", await db.tableNames(), ["root_a", "root_d"]);
    await db.dropAllTables();
    eq("root dropAllTables", await db.tableNames(), []);
    check("namespaces survive dropAllTables on the root", (await db.listNamespaces()).namespaces.length > 0);
  },

  async rename() {
    await db.createNamespace(["rn"]);
    await db.createNamespace(["rn", "child"]);
    await db.createNamespace(["rn_other"]);
    const orig = await db.createTable("to_rename", rows([100, 101, 102]), ["rn"]);
    await orig.add(rows([103]));
    const before = await rawDescribe(["rn"], "to_rename");
    await db.renameTable("to_rename", "renamed", { namespacePath: ["rn"] });
    const r = await db.openTable("renamed", ["rn"]);
    eq("same namespace: the new name reads the same rows", await idsOf(r), [100, 101, 102, 103]);
    eq("same namespace: history kept", (await r.listVersions()).length, 2);
    await rejects("the old name → not found", () => db.openTable("to_rename", ["rn"]), /not found/i);
    eq("listing shows the new name only", await db.tableNames(["rn"]), ["renamed"]);
    const after = await rawDescribe(["rn"], "renamed");
    check("rename keeps the location", before.json?.location && before.json.location === after.json?.location,
          `${before.json?.location} → ${after.json?.location}`);

    const fresh = await db.createTable("to_rename", rows([900]), ["rn"]);
    eq("old name re-created: only the new rows", await idsOf(fresh), [900]);
    eq("old name re-created: a fresh history", (await fresh.listVersions()).map((v) => v.version), [1]);
    eq("the renamed table still has its rows", await idsOf(await db.openTable("renamed", ["rn"])), [100, 101, 102, 103]);
    await r.add(rows([104]));
    eq("writes through the renamed handle land in the renamed table",
       await idsOf(await db.openTable("renamed", ["rn"])), [100, 101, 102, 103, 104]);
    eq("… not in the re-created one", await idsOf(await db.openTable("to_rename", ["rn"])), [900]);

    await db.renameTable("renamed", "moved", { namespacePath: ["rn"], newNamespacePath: ["rn", "child"] });
    eq("into a child namespace: rows", await idsOf(await db.openTable("moved", ["rn", "child"])),
       [100, 101, 102, 103, 104]);
    eq("source namespace listing", await db.tableNames(["rn"]), ["to_rename"]);
    eq("target namespace listing", await db.tableNames(["rn", "child"]), ["moved"]);
    await rejects("old id after the move → not found", () => db.openTable("renamed", ["rn"]), /not found/i);
    await db.renameTable("moved", "moved2", { namespacePath: ["rn", "child"], newNamespacePath: ["rn_other"] });
    eq("into a sibling namespace: rows", await idsOf(await db.openTable("moved2", ["rn_other"])),
       [100, 101, 102, 103, 104]);
    eq("child namespace now empty", await db.tableNames(["rn", "child"]), []);

    await rejects("rename a missing table → not found",
                  () => db.renameTable("nope", "nope2", { namespacePath: ["rn"] }), /not found/i);
    await rejects("rename onto an existing name → already exists",
                  () => db.renameTable("to_rename", "moved2", { namespacePath: ["rn"], newNamespacePath: ["rn_other"] }),
                  /already exists/i);
    eq("the failed rename changed nothing", [await db.tableNames(["rn"]), await db.tableNames(["rn_other"])],
       [["to_rename"], ["moved2"]]);
  },

  async drop_and_recreate() {
    await db.createNamespace(["dr"]);
    const t = await db.createTable("t", rows(range(0, 5)), ["dr"]);
    await t.add(rows([5]));
    const loc = locationDir((await rawDescribe(["dr"], "t")).json?.location);
    await db.dropTable("t", ["dr"]);
    if (loc) check("dropTable deletes the table's files", filesUnder(loc) === 0, `${filesUnder(loc)} files left in ${loc}`);
    eq("dropped table is not listed", await db.tableNames(["dr"]), []);
    await rejects("openTable on the dropped table → not found", () => db.openTable("t", ["dr"]), /not found/i);
    const n = await db.createTable("t", rows([50, 51]), ["dr"]);
    eq("re-created: only the new rows", await idsOf(n), [50, 51]);
    eq("re-created: a fresh history", (await n.listVersions()).map((v) => v.version), [1]);
    eq("re-created: reopened", await idsOf(await db.openTable("t", ["dr"])), [50, 51]);
    await rejects("dropTable on a missing table → not found", () => db.dropTable("missing", ["dr"]), /not found/i);
    await rejects("dropTable in a missing namespace → not found", () => db.dropTable("t", ["dr_missing"]), /not found/i);

    await db.createEmptyTable("e1", schemaOf(), ["dr"]);
    await db.createTable("e2", rows([1]), ["dr"]);
    await db.dropAllTables(["dr"]);
    eq("dropAllTables", await db.tableNames(["dr"]), []);
    const again = await db.createTable("e2", rows([2]), ["dr"]);
    eq("re-created after dropAllTables: only the new rows", await idsOf(again), [2]);
  },

  async drop_namespaces() {
    await db.createNamespace(["dn"], { properties: { k: "v" } });
    await db.createNamespace(["dn", "kid"]);
    await db.createNamespace(["dn", "kid", "grandkid"]);
    await db.createTable("t1", rows([1, 2]), ["dn"]);
    await db.createTable("t2", rows([3]), ["dn", "kid"]);
    await db.createTable("t3", rows([4]), ["dn", "kid", "grandkid"]);
    const loc = locationDir((await rawDescribe(["dn", "kid"], "t2")).json?.location);

    await rejects("drop a namespace with tables (no options) → not empty", () => db.dropNamespace(["dn"]), /not empty/i);
    await rejects("drop a namespace with only a child namespace → not empty",
                  () => db.dropNamespace(["dn", "kid"], { behavior: "restrict" }), /not empty/i);
    eq("… nothing was dropped", await idsOf(await db.openTable("t1", ["dn"])), [1, 2]);

    await step("drop a missing namespace with mode skip succeeds", () => db.dropNamespace(["dn_ghost"], { mode: "skip" }));
    await rejects("drop a missing namespace (default mode) → not found", () => db.dropNamespace(["dn_ghost"]), /not found/i);
    await rejects("drop a missing namespace with mode fail → not found",
                  () => db.dropNamespace(["dn_ghost"], { mode: "fail" }), /not found/i);

    await step("drop with behavior cascade succeeds", () => db.dropNamespace(["dn"], { behavior: "cascade" }));
    check("the namespace is no longer listed", !(await db.listNamespaces()).namespaces.includes("dn"));
    await rejects("describe after cascade → not found", () => db.describeNamespace(["dn"]), /not found/i);
    await rejects("tableNames after cascade → not found", () => db.tableNames(["dn"]), /not found/i);
    await rejects("child namespace gone too", () => db.describeNamespace(["dn", "kid"]), /not found/i);
    await rejects("its tables are gone", () => db.openTable("t1", ["dn"]), /not found/i);
    await rejects("its child's tables are gone", () => db.openTable("t3", ["dn", "kid", "grandkid"]), /not found/i);
    if (loc) check("the child table's files were deleted", filesUnder(loc) === 0, `${filesUnder(loc)} files left in ${loc}`);

    await db.createNamespace(["dn"]);
    eq("re-created namespace has no properties left", (await db.describeNamespace(["dn"])).properties ?? {}, {});
    eq("re-created namespace has no tables", await db.tableNames(["dn"]), []);
    eq("re-created namespace has no children", (await db.listNamespaces(["dn"])).namespaces, []);
    await db.createNamespace(["dn", "kid"]);
    const t2 = await db.createTable("t2", rows([30]), ["dn", "kid"]);
    eq("a table re-created under the old id holds only new rows", await idsOf(t2), [30]);
    await step("cascade drop of the re-created tree", () => db.dropNamespace(["dn"], { behavior: "cascade" }));
  },

  // Auth modes only: what LanceDB sees without credentials or with wrong ones, as a second
  // principal that may only read one table, with a revoked API key, and (bearer) with expired and
  // foreign tokens. LanceDB surfaces the server's error body: code 16 → "Unauthenticated: …",
  // code 15 → "PermissionDenied: …".
  async auth() {
    if (!AUTH) return;
    await db.createNamespace(["au"]);
    await db.createNamespace(["au", "kid"]);
    await db.createNamespace(["au_other"]);
    await db.createTable("shared", rows([1, 2, 3]), ["au"]);
    await db.createTable("private", rows([4]), ["au"]);
    await db.createTable("elsewhere", rows([5]), ["au_other"]);
    const unchanged = async (what) =>
      eq(`${what}: nothing changed`,
         [await db.tableNames(["au"]), await db.tableNames(["au_other"]), (await db.listNamespaces(["au"])).namespaces,
          await idsOf(await db.openTable("shared", ["au"]))],
         [["private", "shared"], ["elsewhere"], ["kid"], [1, 2, 3]]);

    // Every call, reads and writes alike, is refused before it reaches the catalog.
    const refusedEverywhere = async (who, headers) => {
      const c = await connectAs(headers);
      await rejects(`${who}: listNamespaces → 401`, () => c.listNamespaces(), UNAUTHENTICATED);
      await rejects(`${who}: describeNamespace → 401`, () => c.describeNamespace(["au"]), UNAUTHENTICATED);
      await rejects(`${who}: tableNames → 401`, () => c.tableNames(["au"]), UNAUTHENTICATED);
      await rejects(`${who}: openTable → 401`, () => c.openTable("shared", ["au"]), UNAUTHENTICATED);
      await rejects(`${who}: createNamespace → 401`, () => c.createNamespace(["au", "x"]), UNAUTHENTICATED);
      await rejects(`${who}: createTable → 401`, () => c.createTable("x", rows([9]), ["au"]), UNAUTHENTICATED);
      await rejects(`${who}: createEmptyTable → 401`, () => c.createEmptyTable("x", schemaOf(), ["au"]), UNAUTHENTICATED);
      await rejects(`${who}: renameTable → 401`,
                    () => c.renameTable("private", "x", { namespacePath: ["au"] }), UNAUTHENTICATED);
      await rejects(`${who}: dropTable → 401`, () => c.dropTable("shared", ["au"]), UNAUTHENTICATED);
      await rejects(`${who}: dropNamespace cascade → 401`,
                    () => c.dropNamespace(["au_other"], { behavior: "cascade" }), UNAUTHENTICATED);
      c.close();
      await unchanged(who);
    };
    // Two reads are enough for the other bad credentials.
    const refused = async (who, headers) => {
      const c = await connectAs(headers);
      await rejects(`${who}: listNamespaces → 401`, () => c.listNamespaces(), UNAUTHENTICATED);
      await rejects(`${who}: openTable → 401`, () => c.openTable("shared", ["au"]), UNAUTHENTICATED);
      c.close();
    };
    // The request log names why a credential was refused (stderr may arrive after the response).
    const refusedFor = async (reason) => {
      for (let i = 0; i < 40 && !server.err.includes(reason); i++) await new Promise((r) => setTimeout(r, 50));
      check(`the server log gives the reason: ${reason}`, server.err.includes(reason), "not in the request log");
    };

    await refusedEverywhere("no credentials", null);
    if (BEARER) {
      // The reader's token with its subject changed to the admin's: the signature no longer fits.
      const [h, p, sig] = readerHeaders.Authorization.slice("Bearer ".length).split(".");
      const forged = { ...JSON.parse(Buffer.from(p, "base64url")), sub: subOf(ADMIN) };
      await refusedEverywhere("a tampered token (sub rewritten, signature kept)",
                              bearerHeaders(`${h}.${b64url(JSON.stringify(forged))}.${sig}`));
      await refused("a token signed by another key under the same kid",
                    bearerHeaders(mintJwt(subOf(ADMIN), {}, { key: rsaSigner(JWT_KID) })));
      await refused("a token of another issuer", bearerHeaders(mintJwt(subOf(ADMIN), { iss: "https://evil.test" })));
      await refused("a token for another audience", bearerHeaders(mintJwt(subOf(ADMIN), { aud: "someone-else" })));
      await refused("an unsigned token (alg none)", bearerHeaders(
        `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${b64url(JSON.stringify({
          sub: subOf(ADMIN), iss: JWT_ISSUER, aud: JWT_AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 }))}.`));
      const now = Math.floor(Date.now() / 1000);
      await refused("an expired token", bearerHeaders(mintJwt(subOf(ADMIN), { iat: now - 7200, exp: now - 3600 })));
      await refusedFor("token expired");
      await refused("an API key where no key was made", keyHeaders(`qv_${"0".repeat(16)}_${b64url(crypto.randomBytes(32))}`));
    } else {
      const key = AUTH_HEADERS["x-api-key"];
      const wrong = `qv_${/^qv_([0-9a-f]+)_/.exec(key)?.[1]}_${b64url(crypto.randomBytes(32))}`;
      await refusedEverywhere("a wrong secret for the admin's key id", keyHeaders(wrong));
      await refusedFor("wrong secret for API key");
      await refused("an unknown key id", keyHeaders(`qv_${"0".repeat(16)}_${b64url(crypto.randomBytes(32))}`));
      await refused("a malformed key", keyHeaders("not-a-quiver-key"));
      await refused("the key sent as a bearer token (no JWKS configured)", bearerHeaders(key));
    }
    await unchanged("after every refused call");

    // A second principal that holds `reader` on au/shared only. A principal enters a project
    // with its first grant there, which is a server admin's (docs/authorization.md, "Grants
    // across projects": a project admin's grant could otherwise pull another tenant's principal
    // into this project); the operator makes it offline, and the running server picks it up.
    const refusedGrant = await rawPost("/v1/access/tuples", { writes: [`${READER}#reader@table:default/au/shared`] });
    check("the project admin may not make a principal's first grant in the project",
          refusedGrant.status === 403 && refusedGrant.json?.code === 15,
          `${refusedGrant.status} ${refusedGrant.text.slice(0, 300)}`);
    const og = quiverRun("access", "grant", ROOT, `${READER}#reader@table:default/au/shared`);
    check("the operator grants reader on one table (quiver access grant, offline)", og.ok, og.out);
    // The running server reads the offline grant from the change log, at most once a second
    // (authz_refresh_ms) when a request needs it: the reader's calls succeed within that.
    const rdb = await connect(readerHeaders);
    const rt = await step("reader: openTable on its table (once the server has read the grant)", async () => {
      for (const deadline = Date.now() + 10_000; ;) {
        try {
          return await rdb.openTable("shared", ["au"]);
        } catch (e) {
          if (Date.now() > deadline || !/no access to any project/.test(String(e))) throw e;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    });
    eq("whoami as the reader", (await rawGet("/v1/access/whoami", readerHeaders)).json,
       { principal: READER, projects: ["default"], server_admin: false });
    if (rt) {
      eq("reader: reads the rows", await idsOf(rt), [1, 2, 3]);
      eq("reader: countRows with a filter", await rt.countRows("id > 1"), 2);
      const near = await rt.vectorSearch(vecOf(2)).limit(1).toArray();
      eq("reader: vectorSearch", near.map((x) => Number(x.id)), [2]);
      eq("reader: listVersions", (await rt.listVersions()).map((v) => v.version), [1]);
    }
    eq("reader: tableNames lists only the table it may read", await rdb.tableNames(["au"]), ["shared"]);
    eq("reader: listNamespaces shows only the namespace of that table", (await rdb.listNamespaces()).namespaces, ["au"]);
    eq("reader: no child namespaces of it", (await rdb.listNamespaces(["au"])).namespaces, []);
    await rejects("reader: a namespace it holds nothing in → not found", () => rdb.tableNames(["au_other"]), /not found/i);
    await rejects("reader: openTable on a table it holds nothing on → not found",
                  () => rdb.openTable("private", ["au"]), /not found/i);
    await rejects("reader: createTable in the namespace → permission denied",
                  () => rdb.createTable("mine", rows([9]), ["au"]), DENIED);
    await rejects("reader: createEmptyTable in the namespace → permission denied",
                  () => rdb.createEmptyTable("mine", schemaOf(), ["au"]), DENIED);
    await rejects("reader: createNamespace under it → permission denied", () => rdb.createNamespace(["au", "mine"]), DENIED);
    await rejects("reader: dropTable on its table → permission denied", () => rdb.dropTable("shared", ["au"]), DENIED);
    await rejects("reader: renameTable on its table → permission denied",
                  () => rdb.renameTable("shared", "stolen", { namespacePath: ["au"] }), DENIED);
    await rejects("reader: dropNamespace cascade → permission denied",
                  () => rdb.dropNamespace(["au"], { behavior: "cascade" }), DENIED);
    await rejects("reader: dropAllTables → permission denied", () => rdb.dropAllTables(["au"]), DENIED);
    await unchanged("after the reader's attempts");
    rdb.close();
    if (!BEARER) {
      // A project admin governs grants, not other principals' keys.
      const readerKeyId = /^qv_([0-9a-f]+)_/.exec(readerHeaders["x-api-key"])?.[1];
      const rv = await rawPost(`/v1/access/api-keys/${readerKeyId}/revoke`, {});
      check("the project admin cannot revoke the reader's key", rv.status >= 400 && rv.status < 500,
            `${rv.status} ${rv.text.slice(0, 300)}`);
      eq("… which still works", await (await connect(readerHeaders)).tableNames(["au"]), ["shared"]);
    }

    // An API key of the admin's own (made over HTTP; with bearer tokens too), revoked by key id.
    const ck = await rawPost("/v1/access/api-keys", { description: "revoked by check_rest" });
    check("the admin makes itself another API key", ck.status === 200 && /^qv_/.test(ck.json?.key ?? "") &&
          ck.json?.principal === ADMIN, `${ck.status} ${ck.text.slice(0, 300)}`);
    if (ck.json?.key) {
      const kdb = await connect(keyHeaders(ck.json.key));
      eq("the new key works through LanceDB", await kdb.tableNames(["au"]), ["private", "shared"]);
      const rv = await rawPost(`/v1/access/api-keys/${ck.json.key_id}/revoke`, {});
      check("POST /v1/access/api-keys/{key_id}/revoke", rv.status === 200 && !!rv.json?.revoked_at,
            `${rv.status} ${rv.text.slice(0, 300)}`);
      await rejects("revoked key: the open connection is refused (401)", () => kdb.tableNames(["au"]), UNAUTHENTICATED);
      await rejects("revoked key: a new connection is refused (401)",
                    async () => (await connect(keyHeaders(ck.json.key))).openTable("shared", ["au"]), UNAUTHENTICATED);
      await refusedFor(`API key ${ck.json.key_id} is revoked`);
      kdb.close();
    }
    eq("the admin's own credential still works", await db.tableNames(["au"]), ["private", "shared"]);
  },

  async managed_versioning() {
    if (!MANAGED) return;
    await db.createNamespace(["mv"]);
    const t = await db.createTable("t", rows(range(0, 4)), ["mv"]);
    await t.add(rows([4]));
    await t.update({ values: { text: "x" }, where: "id = 1" });
    await t.delete("id = 0");
    eq("the client's commits went through", await t.version(), 4);
    const d = await rawDescribe(["mv"], "t");
    check("describe: managed_versioning true", d.json?.managed_versioning === true, d.text.slice(0, 300));
    const vl = await rawPost(`/v1/table/${tableIdPath(["mv"], "t")}/version/list?delimiter=%24&limit=1&descending=true`, null);
    const newest = vl.json?.versions?.[0];
    check("version/list: newest is v4 with a final manifest path",
          newest?.version === 4 && /_versions\/\d{20}\.manifest$/.test(newest?.manifest_path ?? ""),
          `${vl.status} ${vl.text.slice(0, 300)}`);
    const vl2 = await rawPost(`/v1/table/${tableIdPath(["mv"], "t")}/version/list?delimiter=%24`, null);
    eq("version/list: all versions", (vl2.json?.versions ?? []).map((v) => v.version).sort((a, b) => a - b), [1, 2, 3, 4]);
  },

  // Last: looks at every dataset the other workflows left under the root.
  async versions_dirs_on_disk() {
    if (!MANAGED) return;
    const bad = [];
    let dirs = 0;
    let manifests = 0;
    let deepest = 0;
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (!e.isDirectory()) continue;
        if (e.name === "_versions") {
          dirs++;
          let here = 0;
          for (const f of fs.readdirSync(p)) {
            if (/^\d{20}\.manifest$/.test(f) || /^\d+\.manifest$/.test(f)) here++;
            else if (f !== "latest_version_hint.json") bad.push(path.relative(ROOT, path.join(p, f)));
          }
          manifests += here;
          deepest = Math.max(deepest, here);
        } else {
          walk(p);
        }
      }
    };
    walk(ROOT);
    check(`found _versions/ directories (${dirs}, ${manifests} manifests, at most ${deepest} in one)`,
          dirs >= 10 && deepest >= 4, `${dirs} dirs, deepest ${deepest}`);
    check("only final manifest names in every _versions/ (no staging files left)", bad.length === 0,
          `${bad.length} stray: ${j(bad.slice(0, 10))}`);
  },
};

// ---------------------------------------------------------------------------------------------

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
    }),
  ]);
}

const started = Date.now();
try {
  try {
    if (AUTH) bootstrap();
    await startServer();
    check(`server listens (${server.url})`, true);
  } catch (e) {
    check("server starts and prints its URL", false,
          `${e.message}\n  command: ${quiver} ${server?.args?.join(" ") ?? ""}\n  stdout: ${server?.out ?? ""}\n  stderr: ${server?.err ?? ""}`);
    throw e;
  }
  if (AUTH) {
    const w = await rawGet("/v1/access/whoami");
    eq("whoami: the workflows run as a project admin, not a server admin", w.json,
       { principal: ADMIN, projects: ["default"], server_admin: false });
  }
  db = await connect();
  for (const [name, fn] of Object.entries(workflows)) {
    current = name;
    const t0 = Date.now();
    try {
      await withTimeout(fn(), WORKFLOW_TIMEOUT_MS, name);
    } catch (e) {
      check("threw", false, msgOf(e));
    }
    if (process.env.QV_VERBOSE) console.error(`${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (server.exited) {
      check("server still running", false, j(server.exited));
      break;
    }
  }
} catch {
  // reported above
} finally {
  current = "shutdown";
  // SIGTERM while the client's keep-alive connections are still open: shutdown must not wait
  // for idle clients to hang up.
  const r = await stopServer();
  try {
    db?.close();
  } catch {
    // ignore
  }
  if (r && server?.url) {
    check("SIGTERM: exits with code 0 (graceful shutdown)", stoppedCleanly(r), j(r));
  }
  if (failures > 0 && server?.url) {
    const lines = server.err.split("\n");
    const tail = lines.slice(-300).join("\n");
    console.error(`--- server stderr (last ${Math.min(lines.length, 300)} of ${lines.length} lines) ---\n${tail}\n--- end ---`);
  }
  console.log(`(${mode} mode, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  finishScratch(space);
  report.finish();
}
