// Catalog benchmark: namespace-level operations, quiver over loopback HTTP versus LanceDB 0.31's
// embedded directory namespace (`connectNamespace("dir", {root})`, Rust Lance 8.0), on the same
// machine in the same run. Prints one Markdown table (each phase's raw figures go to stderr).
//
//   node catalog_bench.mjs <quiver binary> <scratch dir> [--sizes 100,10000] [--peer-fill-cap-s 60]
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
// flight; timed too, as "fill"), then, at that size, describe (1 and 8 clients), a full listing
// (1 client), declare (1 then 8 clients) and create-namespace (1 then 8 clients) are timed.
// "size" is the number of tables in "bench" when the phases start; the mutation phases add
// their own tables as they go (+15% at 10,000; the size-100 run ends at 300 tables).
// Phases run in rounds that alternate between the two sides (see Timing below).
//
// LanceDB's create gets slower per table as the namespace grows (~5 ms at 100 tables, ~20 ms
// at 5,000), so its fill is capped at --peer-fill-cap-s seconds: if the cap is hit, LanceDB's
// rows for that size are measured at the size it reached (printed in a note), and nothing is
// extrapolated. Every other phase on either side stops at its op count or after PHASE_CAP_MS
// (split evenly over the rounds), whichever comes first; ops/s is ops done / wall time.
//
// Store requests per op: quiver's /metrics is scraped before and after each quiver round and
// the deltas of quiver_store_requests_total (all kinds summed) are divided by the ops. A scrape
// itself makes one store request (the registry generation is a LIST of the change log, counted
// after the snapshot it reports), which is measured once at start-up and subtracted.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { keepAliveAgent, listeningPort, Q, request as httpRequest, seg } from "../lib/http.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// The CommonJS builds, so that lancedb and this script share one apache-arrow instance.
const require = createRequire(path.join(here, "../../tests/interop/package.json"));
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

// ---------------------------------------------------------------------------------------------
// Arguments

const argv = process.argv.slice(2);
const usage = "node catalog_bench.mjs <quiver binary> <scratch dir> [--sizes 100,10000] [--peer-fill-cap-s 60]";
if (argv.length < 2) {
  console.error(`usage: ${usage}`);
  process.exit(2);
}
const [quiverBin, scratch] = argv;
let sizes = [100, 10000];
let peerFillCapMs = 60_000;
for (let i = 2; i < argv.length; i += 2) {
  if (argv[i] === "--sizes") sizes = argv[i + 1].split(",").map(Number);
  else if (argv[i] === "--peer-fill-cap-s") peerFillCapMs = Number(argv[i + 1]) * 1000;
  else {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
}
const CLIENTS = 8;
const PHASE_CAP_MS = 8_000;
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

// The local disk's fsync latency swings by 10-40x from one second to the next on these machines
// (shared virtio storage), so the two sides never run one after the other for long: every phase
// is cut into rounds, and the rounds alternate between quiver and LanceDB (who goes first
// alternates too). Each side's latencies and wall time are summed over its rounds.
//
// Before every round (untimed) the page cache is flushed with sync(1). LanceDB's local writes
// never fsync, so they leave dirty pages behind, and on ext4 (data=ordered) the next fsync's
// journal commit has to write them out first: without the flush quiver's rounds would pay for
// LanceDB's writeback.
let flushMs = 0;
function flush() {
  const t0 = performance.now();
  execFileSync("sync");
  flushMs += performance.now() - t0;
}

// One side's running totals for one phase.
const tally = () => ({ lat: [], wallMs: 0, next: 0, store: 0 });

// Runs op(i) for i = t.next .. upTo-1 with `clients` in flight, stopping early once `capMs` of
// this round has passed (checked before starting each op).
async function round(t, upTo, clients, capMs, op) {
  const start = performance.now();
  async function worker() {
    while (t.next < upTo && performance.now() - start < capMs) {
      const i = t.next++;
      const t0 = performance.now();
      await op(i);
      t.lat.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: clients }, worker));
  t.wallMs += performance.now() - start;
}

function summary(t) {
  const lat = [...t.lat].sort((a, b) => a - b);
  const pct = (p) => lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)];
  return { ops: lat.length, wall_ms: t.wallMs, ops_s: (lat.length / t.wallMs) * 1000, p50_ms: pct(50), p99_ms: pct(99) };
}

// ops: [quiver op, LanceDB op]; caps: [quiver cap, LanceDB cap] in ms for the whole phase.
async function phase(label, { total, clients, rounds, caps, ops, scrape }) {
  const sides = [tally(), tally()];
  for (let r = 0; r < rounds; r++) {
    const upTo = Math.round((total * (r + 1)) / rounds);
    for (const s of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const cap = caps[s] / rounds;
      flush();
      if (s === 0) {
        const before = await scrape();
        await round(sides[0], upTo, clients, cap, ops[0]);
        sides[0].store += (await scrape()) - before - scrape.cost;
      } else {
        await round(sides[1], upTo, clients, cap, ops[1]);
      }
    }
  }
  const [q, l] = sides.map(summary);
  q.store_per_op = sides[0].store / q.ops;
  console.error(`${label}: quiver ${JSON.stringify(q)}; LanceDB ${JSON.stringify(l)}`);
  return { q, l, total };
}

// ---------------------------------------------------------------------------------------------
// quiver over HTTP

// One keep-alive pool with one socket per client, as a REST client with a connection pool has.
const agent = keepAliveAgent(CLIENTS);
const request = (port, method, urlPath, body) => httpRequest(agent, port, method, urlPath, body);

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

// Servers still running if this script dies halfway (so that none outlives it).
const children = new Set();
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));

async function startQuiver(root, logFile) {
  const log = fs.openSync(logFile, "w");
  const child = spawn(quiverBin, ["serve", "--root", root, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", log] });
  fs.closeSync(log);
  children.add(child);
  child.on("exit", () => children.delete(child));
  const port = await listeningPort(child, 20_000);
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

// A fixed pseudo-random sequence of table indices in [0, n) (the same for both sides).
function picker(n) {
  let s = 12345;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return Math.floor((s / 2 ** 32) * n); // the high bits: an LCG's low bits cycle quickly
  };
}

// Lists every table of `ns` through LanceDB, 100 at a time (startAfter = the last name).
async function lanceListAll(db, ns) {
  const names = [];
  for (;;) {
    const opts = names.length ? { limit: 100, startAfter: names[names.length - 1] } : { limit: 100 };
    const page = await db.tableNames([ns], opts);
    names.push(...page);
    if (page.length < 100) return names;
  }
}

// One size: fresh roots on both sides, quiver's server up (idle while LanceDB runs its rounds).
async function runSize(n, run) {
  const { child, port } = await startQuiver(path.join(scratch, `quiver-${run}`), path.join(scratch, `quiver-${run}.log`));
  const q = quiverClient(port);
  const db = await lancedb.connectNamespace("dir", { root: path.join(scratch, `lancedb-${run}`) });
  const schema = new arrow.Schema([new arrow.Field("id", new arrow.Int64(), false)]);
  const c = counts(n);
  const rows = {};
  try {
    const scrape = () => q.storeRequests();
    const s0 = await scrape();
    scrape.cost = (await scrape()) - s0; // what one scrape adds to the next one's count
    const run_ = async (key, spec) => {
      rows[key] = await phase(`n=${n} ${key}`, { rounds: 5, caps: [PHASE_CAP_MS, PHASE_CAP_MS], scrape, ...spec });
    };

    await q.createNamespace(NS);
    await db.createNamespace([NS]);
    await run_("fill", {
      total: n,
      clients: CLIENTS,
      rounds: 10,
      caps: [Infinity, peerFillCapMs],
      ops: [(i) => q.declare(NS, tableName(i)), (i) => db.createEmptyTable(tableName(i), schema, [NS])],
    });
    // The tables LanceDB has: t000000 .. (the cap may have stopped its fill early).
    const lanceSize = rows.fill.l.ops;
    // Untimed warm-up of both sides' read paths (the client's JIT, the server's first requests),
    // so that one-off first-request costs are not timed.
    for (let i = 0; i < 200; i++) {
      await q.describe(NS, tableName(i % n));
      await db.openTable(tableName(i % lanceSize), [NS]);
    }
    const pq1 = picker(n);
    const pl1 = picker(lanceSize);
    await run_("describe/1", {
      total: c.describe1,
      clients: 1,
      ops: [() => q.describe(NS, tableName(pq1())), () => db.openTable(tableName(pl1()), [NS])],
    });
    const pq8 = picker(n);
    const pl8 = picker(lanceSize);
    await run_("describe/8", {
      total: c.describe8,
      clients: CLIENTS,
      ops: [() => q.describe(NS, tableName(pq8())), () => db.openTable(tableName(pl8()), [NS])],
    });
    await run_("list/1", {
      total: c.listings,
      clients: 1,
      ops: [
        async () => {
          const got = (await q.listAll(NS)).length;
          if (got !== n) throw new Error(`quiver listed ${got} tables, expected ${n}`);
        },
        async () => {
          const got = (await lanceListAll(db, NS)).length;
          if (got !== lanceSize) throw new Error(`LanceDB listed ${got} tables, expected ${lanceSize}`);
        },
      ],
    });
    // Mutations: fresh names per phase (u*, v* tables; a*, b* namespaces under the root).
    await run_("declare/1", {
      total: c.mutate1,
      clients: 1,
      ops: [(i) => q.declare(NS, `u${i}`), (i) => db.createEmptyTable(`u${i}`, schema, [NS])],
    });
    await run_("declare/8", {
      total: c.mutate8,
      clients: CLIENTS,
      ops: [(i) => q.declare(NS, `v${i}`), (i) => db.createEmptyTable(`v${i}`, schema, [NS])],
    });
    await run_("create-namespace/1", {
      total: c.mutate1,
      clients: 1,
      ops: [(i) => q.createNamespace(`a${i}`), (i) => db.createNamespace([`a${i}`])],
    });
    await run_("create-namespace/8", {
      total: c.mutate8,
      clients: CLIENTS,
      ops: [(i) => q.createNamespace(`b${i}`), (i) => db.createNamespace([`b${i}`])],
    });
    return { n, lanceSize, rows };
  } finally {
    db.close?.();
    await stopQuiver(child);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

const results = [];
const t0 = performance.now();
for (const [run, n] of sizes.entries()) results.push(await runSize(n, run));
agent.destroy();
console.error(`total ${((performance.now() - t0) / 1000).toFixed(0)} s, of which sync(1) between rounds ${(flushMs / 1000).toFixed(0)} s`);

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
for (const [key, label, clients] of LABELS) {
  for (const { n, lanceSize, rows } of results) {
    const { q: a, l: b } = rows[key];
    const size = lanceSize === n ? `${n}` : `${n}*`;
    console.log(
      `| ${label} | ${size} | ${clients} | ${f0(a.ops_s)} | ${f2(a.p50_ms)} | ${f2(a.p99_ms)} | ${f0(b.ops_s)} | ${f2(b.p50_ms)} | ${f2(b.p99_ms)} | ${(a.ops_s / b.ops_s).toFixed(2)} | ${a.store_per_op.toFixed(1)} |`,
    );
  }
}
const notes = [];
for (const { n, lanceSize } of results) {
  if (lanceSize !== n) {
    notes.push(
      `* LanceDB's fill stopped at its ${peerFillCapMs / 1000} s cap with ${lanceSize} of ${n} tables; LanceDB's figures for this size were measured at ${lanceSize} tables (quiver's at ${n}).`,
    );
  }
}
const partial = [];
for (const { n, rows } of results) {
  for (const [key, r] of Object.entries(rows)) {
    if (key === "fill") continue;
    for (const [side, x] of [["quiver", r.q], ["LanceDB", r.l]]) {
      if (x.ops < r.total) partial.push(`${side} ${key} at ${n}: ${x.ops} of ${r.total} ops`);
    }
  }
}
if (partial.length) notes.push(`Stopped by the ${PHASE_CAP_MS / 1000} s per-phase cap: ${partial.join("; ")}.`);
if (notes.length) console.log("\n" + notes.join("\n"));
