// Authorization benchmark: what checking grants costs on the read path, quiver with
// authentication and authorization on (`serve --auth`) against the same root served with them
// off. There is no peer with authorization (LanceDB's directory namespace has none), so the
// reference is quiver itself with authorization off. Prints one Markdown table (each phase's raw
// figures go to stderr as JSON).
//
//   node authz_bench.mjs <quiver binary> <scratch dir> [--root DIR] [--seconds 10] [--rounds 6]
//                        [--list-reps 2000] [--shape 10,1000,10000,100000]
//
// The root (built once, then served by every phase):
//   ns00..ns09   1,000 tables each (t0000..t0999)       describe targets
//   big          10,000 tables (b00000..b09999)          the restricted listing
//   small        10 tables (s00..s09)                    the reference listing
// filled over HTTP with auth off (declare, 16 in flight), then, served with --auth and
// --admins user:root (the admin's key made offline with `quiver access create-key`), 100,000
// grants written over HTTP as the admin (POST /v1/access/tuples, 1,000 per request, 8 requests
// in flight): 5 grants on each table of ns00..ns09 and big, held by 1,000 users (reader,
// writer). On top, the two principals the phases use, with API keys made over HTTP:
//   user:bench-reader   reader on 100 tables (10 in each ns00..ns09): the describe targets
//   user:bench-lister   reader on 10 tables of big, and reader on the namespace small
// Neither is an admin, so every request takes the whole check path (API key → project →
// rank walk over the table's chain).
// With --root DIR the root is kept at DIR and its keys in DIR.bench-authz.json; a second run with
// the same --root and --shape skips the fill (printed in the notes). Without it the root lives in
// the scratch dir and is built every run.
//
// Measured phases, each in its own server process (restarted between phases; the rounds run in
// the order on, off, off, on, ... so that drift in machine speed hits both sides alike):
//   describe-table   POST /v1/table/{ns$t}/describe over the 100 targets (fixed pseudo-random
//                    sequence), 1 client then 8 clients (one keep-alive socket each), --seconds
//                    per side split over the rounds; req/s = requests / wall time. A 1.5 s warm-up
//                    (8 clients) precedes the measurements in every server process.
//   list-tables      GET /v1/namespace/{ns}/table/list?limit=100, one client, --list-reps per
//                    side split over the rounds; median and p95. Auth on: bench-lister lists big
//                    (sees 10 of 10,000) and small (grant on the namespace) alternately; auth
//                    off: small. Every answer is checked (exactly the expected names, no page
//                    token).
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { keepAliveAgent, listeningPort, Q, request as httpRequest, seg } from "../lib/http.mjs";

// ---------------------------------------------------------------------------------------------
// Arguments

const argv = process.argv.slice(2);
const usage =
  "node authz_bench.mjs <quiver binary> <scratch dir> [--root DIR] [--seconds 10] [--rounds 6] [--list-reps 2000] [--shape 10,1000,10000,100000]";
if (argv.length < 2) {
  console.error(`usage: ${usage}`);
  process.exit(2);
}
const [quiverBin, scratch] = argv;
let keptRoot = null;
let seconds = 10;
let rounds = 6;
let listReps = 2000;
// namespaces, tables per namespace, tables in big, background grants
let shape = [10, 1000, 10000, 100000];
for (let i = 2; i < argv.length; i += 2) {
  const v = argv[i + 1];
  if (argv[i] === "--root") keptRoot = path.resolve(v);
  else if (argv[i] === "--seconds") seconds = Number(v);
  else if (argv[i] === "--rounds") rounds = Number(v);
  else if (argv[i] === "--list-reps") listReps = Number(v);
  else if (argv[i] === "--shape") shape = v.split(",").map(Number);
  else {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
}
const [NAMESPACES, TABLES_PER_NS, BIG, GRANTS] = shape;
const root = keptRoot ?? path.join(scratch, "root");
const statePath = `${root}.bench-authz.json`;

const ADMIN = "user:root";
const READER = "user:bench-reader";
const LISTER = "user:bench-lister";
const USERS = 1000; // background principals u0000..u0999
const GRANTS_PER_TABLE = 5;
const TUPLES_PER_REQUEST = 1000;
const FILL_CLIENTS = 16;
const TUPLE_CLIENTS = 8;
const CLIENTS = 8;
const WARMUP_MS = 1500;
const SMALL = 10;

const nsName = (k) => `ns${String(k).padStart(2, "0")}`;
const tName = (j) => `t${String(j).padStart(4, "0")}`;
const bigName = (j) => `b${String(j).padStart(5, "0")}`;
const smallName = (j) => `s${String(j).padStart(2, "0")}`;

// The 100 describe targets: 10 tables spread over each of the first 10 namespaces.
const TARGETS = [];
for (let k = 0; k < Math.min(NAMESPACES, 10); k++) {
  for (let j = 0; j < 10; j++) TARGETS.push([nsName(k), tName(Math.floor(((j + 0.5) * TABLES_PER_NS) / 10))]);
}
// The 10 tables of big that bench-lister may see, spread over the namespace.
const LISTER_TABLES = Array.from({ length: 10 }, (_, j) => bigName(Math.floor(((j + 0.37) * BIG) / 10)));
const SMALL_TABLES = Array.from({ length: SMALL }, (_, j) => smallName(j));

// ---------------------------------------------------------------------------------------------
// HTTP

const agent = keepAliveAgent(FILL_CLIENTS);
const request = (port, method, urlPath, body, key, opts = {}) =>
  httpRequest(agent, port, method, urlPath, body, { key, ...opts });

const createNamespace = (port, ns) => request(port, "POST", `/v1/namespace/${seg([ns])}/create?${Q}`, { id: [ns] });
const declare = (port, ns, t) => request(port, "POST", `/v1/table/${seg([ns, t])}/declare?${Q}`, { id: [ns, t] });
const describe = (port, ns, t, key, opts) => request(port, "POST", `/v1/table/${seg([ns, t])}/describe?${Q}`, { id: [ns, t] }, key, opts);
const listTables = async (port, ns, key) => JSON.parse(await request(port, "GET", `/v1/namespace/${seg([ns])}/table/list?${Q}&limit=100`, undefined, key));

// ---------------------------------------------------------------------------------------------
// The server

const children = new Set();
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));
let serverRuns = 0;

// Starts `quiver serve` on the root (stderr, its request log, to a file in the scratch dir).
async function startQuiver(auth) {
  const logFile = path.join(scratch, `quiver-${serverRuns++}-${auth ? "on" : "off"}.log`);
  const log = fs.openSync(logFile, "w");
  const args = ["serve", "--root", root, "--listen", "127.0.0.1:0"];
  if (auth) args.push("--auth", "--admins", ADMIN);
  const child = spawn(quiverBin, args, { stdio: ["ignore", "pipe", log] });
  fs.closeSync(log);
  children.add(child);
  child.on("exit", () => children.delete(child));
  const t0 = performance.now();
  const port = await listeningPort(child, 120_000, `; see ${logFile}`);
  const startMs = performance.now() - t0;
  // "authorization index loaded tuples=N tables=N ..." (text log) is logged before listening.
  const m = fs.readFileSync(logFile, "utf8").match(/authorization index loaded\s+tuples=(\d+)/);
  return { child, port, startMs, tuples: m ? Number(m[1]) : null };
}

// CPU time (s) of a process from /proc/<pid>/stat (utime + stime), and of the whole machine
// (busy time summed over all cores, /proc/stat), so that the run can say how much of the machine
// other processes took while it measured.
const TICK_S = 0.01; // USER_HZ is 100 on Linux
function processCpuS(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_S; // fields 14, 15 of stat(5)
  } catch {
    return 0;
  }
}
function machineBusyS() {
  const [, user, nice, system, , , irq, softirq, steal] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  return (user + nice + system + irq + softirq + steal) * TICK_S;
}
let serverCpuS = 0; // CPU of the servers of the measured phases, summed as they stop

async function stopQuiver({ child }) {
  serverCpuS += processCpuS(child.pid);
  const exited = new Promise((resolve) => child.on("exit", (code, sig) => resolve({ code, sig })));
  child.kill("SIGTERM");
  let timer;
  const r = await Promise.race([exited, new Promise((res) => (timer = setTimeout(() => res(null), 30_000)))]);
  clearTimeout(timer);
  if (r === null) {
    child.kill("SIGKILL");
    throw new Error("quiver did not stop within 30 s of SIGTERM");
  }
  if (r.code !== 0) throw new Error(`quiver stopped with ${JSON.stringify(r)}`);
}

// Runs op(i) for i = 0, 1, ... with `clients` in flight until `total` ops or `ms` have passed.
async function drive(clients, { total = Infinity, ms = Infinity }, op) {
  let next = 0;
  const lat = [];
  const start = performance.now();
  async function worker() {
    while (next < total && performance.now() - start < ms) {
      const i = next++;
      const t0 = performance.now();
      await op(i);
      lat.push(performance.now() - t0);
    }
  }
  await Promise.all(Array.from({ length: clients }, worker));
  return { lat, wallMs: performance.now() - start };
}

// quiver's own time for DescribeTable (request parsed to response built, authorization included;
// not the HTTP transport), from the latency histogram's sum and count on /metrics.
// /metrics is for server admins when authentication is on.
async function handlerTime(port, adminKey) {
  const text = await request(port, "GET", "/metrics", undefined, adminKey);
  const get = (what) => Number(text.match(new RegExp(`^quiver_request_duration_seconds_${what}\\{operation="DescribeTable"\\} (\\S+)$`, "m"))?.[1] ?? 0);
  return { sum: get("sum"), count: get("count") };
}

// ---------------------------------------------------------------------------------------------
// The fill (once per root)

function loadState() {
  try {
    const s = JSON.parse(fs.readFileSync(statePath, "utf8"));
    return JSON.stringify(s.shape) === JSON.stringify(shape) && s.done ? s : null;
  } catch {
    return null;
  }
}

// Background grant number g (0 .. GRANTS-1): table floor(g / 5) of the list (ns00..ns09 in
// order, then big), by user ((table * 37 + 200 * r) mod 1000) for r = g mod 5 (five distinct
// users per table), reader for r < 3, writer otherwise. A request's 1,000 grants cover 200
// consecutive tables, so concurrent requests never edit the same record.
function grantTuple(g, tables) {
  const t = Math.floor(g / GRANTS_PER_TABLE) % tables.length;
  const r = g % GRANTS_PER_TABLE;
  const user = `u${String((t * 37 + 200 * r) % USERS).padStart(4, "0")}`;
  const [ns, name] = tables[t];
  return `user:${user}#${r < 3 ? "reader" : "writer"}@table:default/${ns}/${name}`;
}

async function fill() {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(statePath, { force: true });
  const info = {};
  // 1. Namespaces and tables, auth off.
  let s = await startQuiver(false);
  try {
    const namespaces = [...Array.from({ length: NAMESPACES }, (_, k) => nsName(k)), "big", "small"];
    for (const ns of namespaces) await createNamespace(s.port, ns);
    const tables = [];
    for (let k = 0; k < NAMESPACES; k++) for (let j = 0; j < TABLES_PER_NS; j++) tables.push([nsName(k), tName(j)]);
    for (let j = 0; j < BIG; j++) tables.push(["big", bigName(j)]);
    for (const t of SMALL_TABLES) tables.push(["small", t]);
    const r = await drive(FILL_CLIENTS, { total: tables.length }, (i) => declare(s.port, ...tables[i]));
    info.declare = { tables: tables.length, s: r.wallMs / 1000, per_s: (tables.length / r.wallMs) * 1000 };
    console.error(`fill: declared ${JSON.stringify(info.declare)}`);
  } finally {
    await stopQuiver(s);
  }
  // 2. The admin's key, offline (bootstrap).
  const adminKey = execFileSync(quiverBin, ["access", "create-key", root, "--principal", ADMIN], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  // 3. Grants and the bench principals' keys, over HTTP as the admin, auth on.
  s = await startQuiver(true);
  try {
    const tables = [];
    for (let k = 0; k < NAMESPACES; k++) for (let j = 0; j < TABLES_PER_NS; j++) tables.push([nsName(k), tName(j)]);
    for (let j = 0; j < BIG; j++) tables.push(["big", bigName(j)]);
    const batches = Math.ceil(GRANTS / TUPLES_PER_REQUEST);
    const r = await drive(TUPLE_CLIENTS, { total: batches }, async (b) => {
      const writes = [];
      for (let g = b * TUPLES_PER_REQUEST; g < Math.min(GRANTS, (b + 1) * TUPLES_PER_REQUEST); g++) writes.push(grantTuple(g, tables));
      const got = JSON.parse(await request(s.port, "POST", "/v1/access/tuples", { writes }, adminKey));
      if (got.written.length !== writes.length) throw new Error(`tuples: ${got.written.length} of ${writes.length} written`);
    });
    info.grants = { tuples: GRANTS, requests: batches, s: r.wallMs / 1000, per_s: (GRANTS / r.wallMs) * 1000 };
    console.error(`fill: granted ${JSON.stringify(info.grants)}`);
    const writes = [
      ...TARGETS.map(([ns, t]) => `${READER}#reader@table:default/${ns}/${t}`),
      ...LISTER_TABLES.map((t) => `${LISTER}#reader@table:default/big/${t}`),
      `${LISTER}#reader@namespace:default/small`,
    ];
    await request(s.port, "POST", "/v1/access/tuples", { writes }, adminKey);
    info.bench_grants = writes.length;
    const keyOf = async (principal) => JSON.parse(await request(s.port, "POST", "/v1/access/api-keys", { principal }, adminKey)).key;
    const state = { shape, done: true, adminKey, readerKey: await keyOf(READER), listerKey: await keyOf(LISTER), info };
    fs.writeFileSync(statePath, JSON.stringify(state, null, 2) + "\n");
    return state;
  } finally {
    await stopQuiver(s);
  }
}

// ---------------------------------------------------------------------------------------------
// The measured phases

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function sameNames(got, want) {
  return got.tables.length === want.length && got.tables.every((n, i) => n === want[i]) && (got.page_token === undefined || got.page_token === null);
}

// A fixed pseudo-random sequence over the describe targets (the same for both sides).
function picker(n, seed) {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return Math.floor((s / 2 ** 32) * n);
  };
}

// Totals per side ("on" / "off") over the rounds.
const acc = { on: {}, off: {} };
function add(side, key, lat, wallMs) {
  const a = (acc[side][key] ??= { lat: [], wallMs: 0 });
  a.lat.push(...lat);
  a.wallMs += wallMs;
}
const startInfo = { on: [], off: [] };

async function session(side, round, state) {
  const auth = side === "on";
  // Untimed: write out what the fill (or the last phase's request log) left dirty, so that the
  // kernel's writeback does not land in one side's measurement.
  execFileSync("sync");
  const s = await startQuiver(auth);
  startInfo[side].push({ start_ms: Math.round(s.startMs), tuples: s.tuples });
  const readerKey = auth ? state.readerKey : undefined;
  const listerKey = auth ? state.listerKey : undefined;
  const adminKey = auth ? state.adminKey : undefined;
  try {
    // Correctness first: the restricted listing, the namespace listing, and (auth on) a table the
    // reader holds no grant on is hidden.
    if (auth) {
      const big = await listTables(s.port, "big", listerKey);
      if (!sameNames(big, LISTER_TABLES)) throw new Error(`bench-lister's listing of big: ${JSON.stringify(big).slice(0, 300)}`);
      await describe(s.port, "big", bigName(1), readerKey, { expect: 404 });
      await describe(s.port, nsName(0), tName(1), readerKey, { expect: 404 });
    }
    const small = await listTables(s.port, "small", listerKey);
    if (!sameNames(small, SMALL_TABLES)) throw new Error(`listing of small: ${JSON.stringify(small).slice(0, 300)}`);

    // Warm-up (untimed): the client's JIT, the server's key cache and first requests.
    const pw = picker(TARGETS.length, 777);
    await drive(CLIENTS, { ms: WARMUP_MS }, () => describe(s.port, ...TARGETS[pw()], readerKey));
    for (let i = 0; i < 100; i++) {
      await listTables(s.port, "small", listerKey);
      if (auth) await listTables(s.port, "big", listerKey);
    }

    const ms = (seconds * 1000) / rounds;
    for (const clients of [1, CLIENTS]) {
      const p = picker(TARGETS.length, 12345 + round * 101 + clients);
      const before = await handlerTime(s.port, adminKey);
      const r = await drive(clients, { ms }, () => describe(s.port, ...TARGETS[p()], readerKey));
      const after = await handlerTime(s.port, adminKey);
      add(side, `describe/${clients}`, r.lat, r.wallMs);
      (acc[side][`rounds/${clients}`] ??= [])[round] = (r.lat.length / r.wallMs) * 1000;
      const h = (acc[side][`handler/${clients}`] ??= { sum: 0, count: 0 });
      h.sum += after.sum - before.sum;
      h.count += after.count - before.count;
      console.error(`${side} round ${round} describe/${clients}: ${JSON.stringify({ ops: r.lat.length, ops_s: Math.round((r.lat.length / r.wallMs) * 1000) })}`);
    }

    const reps = Math.ceil(listReps / rounds);
    const lat = { big: [], small: [] };
    for (let i = 0; i < reps; i++) {
      for (const ns of auth ? (i % 2 ? ["small", "big"] : ["big", "small"]) : ["small"]) {
        const t0 = performance.now();
        const got = await listTables(s.port, ns, listerKey);
        lat[ns].push(performance.now() - t0);
        if (!sameNames(got, ns === "big" ? LISTER_TABLES : SMALL_TABLES)) throw new Error(`listing of ${ns}: ${JSON.stringify(got).slice(0, 300)}`);
      }
    }
    for (const ns of auth ? ["big", "small"] : ["small"]) {
      add(side, `list/${ns}`, lat[ns], 0);
      const sorted = [...lat[ns]].sort((a, b) => a - b);
      console.error(`${side} round ${round} list/${ns}: ${JSON.stringify({ reps: sorted.length, p50_ms: pct(sorted, 50), p95_ms: pct(sorted, 95) })}`);
    }
  } finally {
    await stopQuiver(s);
  }
}

// ---------------------------------------------------------------------------------------------
// Main

const t0 = performance.now();
const load0 = os.loadavg()[0];
let state = keptRoot ? loadState() : null;
const reused = state !== null;
if (!reused) state = await fill();
else console.error(`fill skipped: reusing ${root} (${statePath})`);
const fillS = (performance.now() - t0) / 1000;

serverCpuS = 0;
const busy0 = machineBusyS();
const node0 = process.cpuUsage();
const m0 = performance.now();
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 === 0 ? ["on", "off"] : ["off", "on"]) await session(side, r, state);
}
const measureS = (performance.now() - m0) / 1000;
const nodeUsage = process.cpuUsage(node0);
const othersS = Math.max(0, machineBusyS() - busy0 - serverCpuS - (nodeUsage.user + nodeUsage.system) / 1e6);
console.error(`cpu during the phases: machine busy ${(machineBusyS() - busy0).toFixed(1)} s, servers ${serverCpuS.toFixed(1)} s, node ${((nodeUsage.user + nodeUsage.system) / 1e6).toFixed(1)} s`);
agent.destroy();
const totalS = (performance.now() - t0) / 1000;
console.error(`total ${totalS.toFixed(0)} s (fill ${reused ? "skipped" : `${fillS.toFixed(0)} s`})`);

const stats = (a) => {
  const sorted = [...a.lat].sort((x, y) => x - y);
  return { n: sorted.length, ops_s: (sorted.length / a.wallMs) * 1000, p50: pct(sorted, 50), p95: pct(sorted, 95), p99: pct(sorted, 99) };
};
const f3 = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const yes = (ok) => (ok ? "yes" : "**no**");

console.log("| operation | clients | authz on (quiver) | authz off (quiver, reference) | ratio on/off | target | met? |");
console.log("|---|---:|---:|---:|---:|---:|---|");
for (const clients of [1, CLIENTS]) {
  const on = stats(acc.on[`describe/${clients}`]);
  const off = stats(acc.off[`describe/${clients}`]);
  const ratio = on.ops_s / off.ops_s;
  console.log(`| describe-table, req/s (p50 / p99 ms) | ${clients} | ${on.ops_s.toFixed(0)} (${f3(on.p50)} / ${f3(on.p99)}) | ${off.ops_s.toFixed(0)} (${f3(off.p50)} / ${f3(off.p99)}) | ${ratio.toFixed(2)} | ≥ 0.80 | ${yes(ratio >= 0.8)} |`);
}
const big = stats(acc.on["list/big"]);
const smallOn = stats(acc.on["list/small"]);
const smallOff = stats(acc.off["list/small"]);
for (const [label, key] of [["median", "p50"], ["p95", "p95"]]) {
  const r1 = big[key] / smallOn[key];
  console.log(`| list-tables, ${label} ms: 10 visible of 10,000 vs a 10-table namespace (grant on it), both authz on | 1 | ${f3(big[key])} | ${f3(smallOn[key])} | ${r1.toFixed(2)} | ≤ 3 | ${yes(r1 <= 3)} |`);
}
for (const [label, key] of [["median", "p50"], ["p95", "p95"]]) {
  const r2 = big[key] / smallOff[key];
  console.log(`| list-tables, ${label} ms: 10 visible of 10,000 (authz on) vs a 10-table namespace (authz off) | 1 | ${f3(big[key])} | ${f3(smallOff[key])} | ${r2.toFixed(2)} | ≤ 3 | ${yes(r2 <= 3)} |`);
}

const tuples = startInfo.on.map((x) => x.tuples);
const perRound = (clients) => acc.on[`rounds/${clients}`].map((x, r) => (x / acc.off[`rounds/${clients}`][r]).toFixed(2)).join(", ");
const us = (side, clients) => (acc[side][`handler/${clients}`].sum / acc[side][`handler/${clients}`].count) * 1e6;
const notes = [];
const fi = state.info;
notes.push(
  `Root: ${NAMESPACES} namespaces × ${TABLES_PER_NS} tables + big (${BIG}) + small (${SMALL}) = ${fi.declare.tables} tables; ` +
    `${fi.grants.tuples} background grants over ${USERS} users + ${fi.bench_grants} for the two bench principals; ` +
    `the authorization index held ${tuples[0]} tuples at start-up (this includes the owner grant every declared table carries).`,
);
notes.push(
  reused
    ? `Fill skipped: root reused from ${root}.`
    : `Fill: ${fi.declare.tables} declares in ${fi.declare.s.toFixed(1)} s (${fi.declare.per_s.toFixed(0)}/s, ${FILL_CLIENTS} in flight, authz off); ` +
        `${fi.grants.tuples} grants in ${fi.grants.requests} requests in ${fi.grants.s.toFixed(1)} s (${fi.grants.per_s.toFixed(0)}/s, ${TUPLE_CLIENTS} requests in flight).`,
);
notes.push(
  `describe-table on/off ratio of each round (one on and one off server process, back to back): 1 client ${perRound(1)}; ${CLIENTS} clients ${perRound(CLIENTS)}.`,
);
notes.push(
  `quiver's own DescribeTable time (from /metrics: request parsed to response built, authorization included, HTTP transport not), mean µs: ` +
    `1 client ${us("on", 1).toFixed(1)} on / ${us("off", 1).toFixed(1)} off, ${CLIENTS} clients ${us("on", CLIENTS).toFixed(1)} on / ${us("off", CLIENTS).toFixed(1)} off.`,
);
notes.push(
  `Per side: describe ${seconds} s per client count and ${Math.ceil(listReps / rounds) * rounds} listings per namespace, over ${rounds} server processes ` +
    `(order on, off, off, on, …); server start-up (ms): authz on ${startInfo.on.map((x) => x.start_ms).join(", ")}, off ${startInfo.off.map((x) => x.start_ms).join(", ")}. ` +
    `Describe requests per side: 1 client ${stats(acc.on["describe/1"]).n} on / ${stats(acc.off["describe/1"]).n} off, ${CLIENTS} clients ${stats(acc.on[`describe/${CLIENTS}`]).n} on / ${stats(acc.off[`describe/${CLIENTS}`]).n} off. Total ${totalS.toFixed(0)} s; 1-minute load average ${load0.toFixed(2)} at the start.`,
);
notes.push(
  `While the phases ran (${measureS.toFixed(0)} s), everything but this benchmark's node process and servers (other processes, kernel writeback) kept ` +
    `${((othersS / measureS) * 100).toFixed(0)}% of one core busy (of ${os.cpus().length * 100}%): the more, the noisier the rows.`,
);
console.log("\n" + notes.join("\n"));
