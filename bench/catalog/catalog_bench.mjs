// Catalog benchmark: namespace-level operations, quiver over loopback HTTP versus LanceDB 0.31's
// embedded directory namespace (`connectNamespace("dir", {root})`, Rust Lance 8.0), on the same
// machine in the same run. Prints one Markdown table (and the raw figures as JSON on stderr).
//
//   node catalog_bench.mjs <quiver binary> <scratch dir> [--sizes 100,10000] [--peer-fill-cap-s 90]
//
// Operations and their peers (lancedb-rest-trace.md §3: what LanceDB's REST client sends):
//   create-namespace  POST /v1/namespace/{id}/create   {"id":[..]}   | createNamespace([name])
//   declare-table     POST /v1/table/{id}/declare      {"id":[..]}   | createEmptyTable(name, 1-column schema, [ns])
//   describe-table    POST /v1/table/{id}/describe     {"id":[..]}   | openTable(name, [ns])
//   list-tables       GET  /v1/namespace/{id}/table/list?limit=100, following page_token to the end
//                                                                    | tableNames([ns], {limit:100, startAfter})
// Every request carries ?delimiter=%24 as the REST client's do.
//
// Per size N, each side gets a fresh root: the namespace "bench" is filled with N tables (8 in
// flight), then, at that size, describe (1 and 8 clients), a full listing (1 client), declare
// (1 then 8 clients) and create-namespace (1 then 8 clients) are timed. "size" is the number of
// tables in "bench" when the phases start; the mutation phases add their own tables as they go
// (at most +15% at 10,000; at 100 the size-100 run ends at 300 tables).
//
// LanceDB's create gets slower and slower per table (~7 ms at 100 tables, more at thousands), so
// its fill is capped at --peer-fill-cap-s seconds: if the cap is hit, LanceDB's rows for that
// size are measured at the size it reached (printed in a note), and nothing is extrapolated.
// Every other phase on either side stops at its op count or after PHASE_CAP_MS, whichever comes
// first; ops/s is ops done / wall time.
//
// Store requests per op: quiver's /metrics is scraped before and after each phase and the deltas
// of quiver_store_requests_total (all kinds summed) are divided by the ops. A scrape itself makes
// one store request (the registry generation is a LIST of the change log, counted after the
// snapshot it reports), which is measured once at start-up and subtracted.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
// The CommonJS builds, so that lancedb and this script share one apache-arrow instance.
const require = createRequire(path.join(here, "../../tests/interop/package.json"));
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

// ---------------------------------------------------------------------------------------------
// Arguments

const argv = process.argv.slice(2);
const usage = "node catalog_bench.mjs <quiver binary> <scratch dir> [--sizes 100,10000] [--peer-fill-cap-s 90]";
if (argv.length < 2) {
  console.error(`usage: ${usage}`);
  process.exit(2);
}
const [quiverBin, scratch] = argv;
let sizes = [100, 10000];
let peerFillCapMs = 90_000;
for (let i = 2; i < argv.length; i += 2) {
  if (argv[i] === "--sizes") sizes = argv[i + 1].split(",").map(Number);
  else if (argv[i] === "--peer-fill-cap-s") peerFillCapMs = Number(argv[i + 1]) * 1000;
  else {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
}
const CLIENTS = 8;
const PHASE_CAP_MS = 10_000;
const NS = "bench";
const tableName = (i) => `t${String(i).padStart(6, "0")}`;

// Op counts per phase at size n. At 100 the mutations add as many tables as there are, so that
// the size-100 run stays small; at 10,000 they are enough samples for a p99.
function counts(n) {
  const small = n <= 1000;
  return {
    describe1: small ? 1000 : 2000,
    describe8: small ? 2000 : 4000,
    listings: small ? 50 : 5,
    mutate1: small ? n : 500,
    mutate8: small ? n : 1000,
  };
}

// ---------------------------------------------------------------------------------------------
// Timing

// Runs op(i) for i = 0.. with `clients` of them in flight until `total` are done or `capMs` has
// passed (checked before starting each op). Latency is per op; ops/s is done / wall time.
async function phase(total, clients, capMs, op) {
  let next = 0;
  const lat = [];
  const start = performance.now();
  async function worker() {
    while (next < total && performance.now() - start < capMs) {
      const i = next++;
      const t0 = performance.now();
      await op(i);
      lat.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: clients }, worker));
  const wallMs = performance.now() - start;
  lat.sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)];
  return { ops: lat.length, wall_ms: wallMs, ops_s: (lat.length / wallMs) * 1000, p50_ms: pct(50), p99_ms: pct(99) };
}

// ---------------------------------------------------------------------------------------------
// quiver over HTTP

// One keep-alive pool with one socket per client, as a REST client with a connection pool has.
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

function request(port, method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers = data === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(data) };
    const req = http.request({ host: "127.0.0.1", port, method, path: urlPath, agent, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== 200) reject(new Error(`${method} ${urlPath} -> ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(text);
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

// The id path segment: parts joined by the delimiter, then url-encoded (`bench$t1` -> `bench%24t1`).
const seg = (id) => encodeURIComponent(id.join("$"));
const Q = "delimiter=%24";

function quiverClient(port) {
  const post = (p, body) => request(port, "POST", p, body);
  return {
    createNamespace: (name) => post(`/v1/namespace/${seg([name])}/create?${Q}`, { id: [name] }),
    declare: (ns, name) => post(`/v1/table/${seg([ns, name])}/declare?${Q}`, { id: [ns, name] }),
    describe: (ns, name) => post(`/v1/table/${seg([ns, name])}/describe?${Q}`, { id: [ns, name] }),
    async listAll(ns) {
      const names = [];
      let token;
      for (;;) {
        const tok = token === undefined ? "" : `&page_token=${encodeURIComponent(token)}`;
        const page = JSON.parse(await request(port, "GET", `/v1/namespace/${seg([ns])}/table/list?${Q}&limit=100${tok}`));
        names.push(...page.tables);
        if (page.page_token === undefined || page.page_token === null) return names;
        token = page.page_token;
      }
    },
    async storeRequests() {
      const text = await request(port, "GET", "/metrics");
      let sum = 0;
      for (const m of text.matchAll(/^quiver_store_requests_total\{kind="[^"]*"\} (\S+)$/gm)) sum += Number(m[1]);
      return sum;
    },
  };
}

async function startQuiver(root, logFile) {
  const log = fs.openSync(logFile, "w");
  const child = spawn(quiverBin, ["serve", "--root", root, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", log] });
  fs.closeSync(log);
  const port = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`quiver did not start in 20 s: ${out}`)), 20_000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on("exit", (code) => reject(new Error(`quiver exited (${code}) before listening: ${out}`)));
  });
  child.stdout.resume();
  return { child, port };
}

async function stopQuiver(child) {
  const exited = new Promise((resolve) => child.on("exit", (code, sig) => resolve({ code, sig })));
  child.kill("SIGTERM");
  const r = await Promise.race([exited, new Promise((res) => setTimeout(() => res(null), 15_000))]);
  if (r === null) {
    child.kill("SIGKILL");
    throw new Error("quiver did not stop within 15 s of SIGTERM");
  }
  if (r.code !== 0) throw new Error(`quiver stopped with ${JSON.stringify(r)}`);
}

// A fixed pseudo-random sequence of table indices (the same for both sides).
function picker(n) {
  let s = 12345;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s % n;
  };
}

async function runQuiver(n) {
  const root = path.join(scratch, `quiver-${n}`);
  const { child, port } = await startQuiver(root, path.join(scratch, `quiver-${n}.log`));
  const q = quiverClient(port);
  const c = counts(n);
  const rows = {};
  try {
    // What one scrape adds to the next one's count.
    const s0 = await q.storeRequests();
    const scrapeCost = (await q.storeRequests()) - s0;
    async function measured(key, total, clients, op) {
      const before = await q.storeRequests();
      const r = await phase(total, clients, key === "fill" ? Infinity : PHASE_CAP_MS, op);
      const after = await q.storeRequests();
      r.store_per_op = (after - before - scrapeCost) / r.ops;
      rows[key] = r;
      console.error(`quiver n=${n} ${key}: ${JSON.stringify(r)}`);
    }
    await q.createNamespace(NS);
    await measured("fill", n, CLIENTS, (i) => q.declare(NS, tableName(i)));
    const pick1 = picker(n);
    await measured("describe/1", c.describe1, 1, () => q.describe(NS, tableName(pick1())));
    const pick8 = picker(n);
    await measured("describe/8", c.describe8, CLIENTS, () => q.describe(NS, tableName(pick8())));
    await measured("list/1", c.listings, 1, async () => {
      const names = await q.listAll(NS);
      if (names.length !== n) throw new Error(`quiver listed ${names.length} tables, expected ${n}`);
    });
    let next = n;
    await measured("declare/1", c.mutate1, 1, () => q.declare(NS, tableName(next++)));
    await measured("declare/8", c.mutate8, CLIENTS, () => q.declare(NS, tableName(next++)));
    await measured("create-namespace/1", c.mutate1, 1, (i) => q.createNamespace(`a${i}`));
    await measured("create-namespace/8", c.mutate8, CLIENTS, (i) => q.createNamespace(`b${i}`));
  } finally {
    await stopQuiver(child);
  }
  return { size: n, rows };
}

// ---------------------------------------------------------------------------------------------
// LanceDB directory namespace, embedded

async function runLance(n) {
  const root = path.join(scratch, `lancedb-${n}`);
  const db = await lancedb.connectNamespace("dir", { root });
  const schema = new arrow.Schema([new arrow.Field("id", new arrow.Int64(), false)]);
  const c = counts(n);
  const rows = {};
  const measured = async (key, total, clients, op, capMs = PHASE_CAP_MS) => {
    rows[key] = await phase(total, clients, capMs, op);
    console.error(`lancedb n=${n} ${key}: ${JSON.stringify(rows[key])}`);
  };
  await db.createNamespace([NS]);
  await measured("fill", n, CLIENTS, (i) => db.createEmptyTable(tableName(i), schema, [NS]), peerFillCapMs);
  const size = rows.fill.ops; // tables that exist (the cap may have stopped the fill early)
  const pick1 = picker(size);
  await measured("describe/1", c.describe1, 1, () => db.openTable(tableName(pick1()), [NS]));
  const pick8 = picker(size);
  await measured("describe/8", c.describe8, CLIENTS, () => db.openTable(tableName(pick8()), [NS]));
  await measured("list/1", c.listings, 1, async () => {
    const names = [];
    for (;;) {
      const opts = names.length ? { limit: 100, startAfter: names[names.length - 1] } : { limit: 100 };
      const page = await db.tableNames([NS], opts);
      names.push(...page);
      if (page.length < 100) break;
    }
    if (names.length !== size) throw new Error(`LanceDB listed ${names.length} tables, expected ${size}`);
  });
  // Mutations continue after the indices the fill used (it may have stopped early).
  let next = Math.max(n, size);
  await measured("declare/1", c.mutate1, 1, () => db.createEmptyTable(tableName(next++), schema, [NS]));
  await measured("declare/8", c.mutate8, CLIENTS, () => db.createEmptyTable(tableName(next++), schema, [NS]));
  await measured("create-namespace/1", c.mutate1, 1, (i) => db.createNamespace([`a${i}`]));
  await measured("create-namespace/8", c.mutate8, CLIENTS, (i) => db.createNamespace([`b${i}`]));
  db.close?.();
  return { size, rows };
}

// ---------------------------------------------------------------------------------------------
// Main

const results = [];
for (const n of sizes) {
  // Each side on its own fresh root; quiver's server is gone before LanceDB runs.
  const ours = await runQuiver(n);
  const theirs = await runLance(n);
  results.push({ n, ours, theirs });
}
agent.destroy();
console.error(JSON.stringify(results));

const LABELS = [
  ["fill", "declare-table (fill 0→N)", CLIENTS],
  ["declare/1", "declare-table", 1],
  ["declare/8", "declare-table", CLIENTS],
  ["create-namespace/1", "create-namespace", 1],
  ["create-namespace/8", "create-namespace", CLIENTS],
  ["describe/1", "describe-table", 1],
  ["describe/8", "describe-table", CLIENTS],
  ["list/1", "list-tables (all, pages of 100)", 1],
];
const f0 = (x) => x.toFixed(0);
const f2 = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
console.log("| operation | size | clients | quiver ops/s | p50 ms | p99 ms | LanceDB ops/s | p50 ms | p99 ms | ratio | store req/op |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
const notes = [];
for (const [key, label, clients] of LABELS) {
  for (const { n, ours, theirs } of results) {
    const a = ours.rows[key];
    const b = theirs.rows[key];
    let size = `${n}`;
    if (theirs.size !== n) size += "*";
    console.log(
      `| ${label} | ${size} | ${clients} | ${f0(a.ops_s)} | ${f2(a.p50_ms)} | ${f2(a.p99_ms)} | ${f0(b.ops_s)} | ${f2(b.p50_ms)} | ${f2(b.p99_ms)} | ${(a.ops_s / b.ops_s).toFixed(2)} | ${a.store_per_op.toFixed(1)} |`,
    );
  }
}
for (const { n, theirs } of results) {
  if (theirs.size !== n) {
    notes.push(
      `* LanceDB's fill stopped at its ${peerFillCapMs / 1000} s cap with ${theirs.size} of ${n} tables; its rows for this size were measured at ${theirs.size} tables.`,
    );
  }
}
const partial = [];
for (const { n, ours, theirs } of results) {
  for (const [side, r] of [["quiver", ours], ["LanceDB", theirs]]) {
    const c = counts(n);
    const want = { "describe/1": c.describe1, "describe/8": c.describe8, "list/1": c.listings, "declare/1": c.mutate1, "declare/8": c.mutate8, "create-namespace/1": c.mutate1, "create-namespace/8": c.mutate8 };
    for (const [key, total] of Object.entries(want)) {
      if (r.rows[key].ops < total) partial.push(`${side} ${key} at ${n}: ${r.rows[key].ops} of ${total} ops (${PHASE_CAP_MS / 1000} s cap)`);
    }
  }
}
if (partial.length) notes.push(`Phases stopped by the time cap: ${partial.join("; ")}.`);
if (notes.length) console.log("\n" + notes.join("\n"));
