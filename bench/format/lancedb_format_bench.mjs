// Format benchmark, LanceDB's side (LanceDB 0.31 = Rust Lance 8.0, from tests/interop's
// node_modules, or with QV_LANCEDB=0.39 LanceDB 0.39 = Lance 12 from tests/interop/lancedb-0.39;
// CJS apache-arrow so that LanceDB and this script share one Arrow instance).
// Driven by build/bench/format_bench over stdin/stdout, one JSON command per line in, one JSON
// reply per line out (prefixed "@@ " so that anything else printed on stdout cannot be taken for
// a reply). Progress and LanceDB's own logging go to stderr.
//
//   {"op":"load","data":F}             read the Arrow IPC stream F (untimed) -> {rows}
//   {"op":"write","root":D,"name":N}   create table N under D from the loaded table -> timings
//   {"op":"scan","root":D,"name":N,"columns":[..]|null,"how":"arrow"|"analyze"} -> timings
//   {"op":"quit"}
//
// write: LanceDB's createTable(name, arrowTable) is, in 0.31 (dist/connection.js
// _createTableImpl), "serialize the table to an Arrow IPC file buffer in JS
// (fromTableToBuffer = RecordBatchFileWriter.writeAll), then the native createTable(buf)". We do
// exactly those two steps and time them apart: `e2e_s` = both, `rust_s` = the native call only.
// LanceDB never fsyncs, quiver's local store fsyncs every file and directory it writes, so
// fsync is *included on both sides*: after createTable returns we fsync every file and directory
// of the new table (`fsync_s`, counted in e2e_s and rust_s; `nofsync_*` leave it out).
//
// scan: "arrow" times query().toArrow() (Rust scan + IPC hop into JS + JS table), "analyze"
// times query().analyzePlan(), which executes the same plan in Rust and discards the batches; its
// AnalyzeExec `elapsed=` is the Rust-side time (`rust_s`), its wall time is `wall_s`.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
// QV_LANCEDB=0.39 takes LanceDB 0.39 (Lance 12, file format 2.2 by default) from its own set.
const set = process.env.QV_LANCEDB ? `lancedb-${process.env.QV_LANCEDB}` : "";
const require = createRequire(path.join(here, "../../tests/interop", set, "package.json"));
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const now = () => process.hrtime.bigint();
const secs = (a, b) => Number(b - a) / 1e9;

let table = null; // the loaded apache-arrow Table
const conns = new Map();
async function connect(root) {
  if (!conns.has(root)) conns.set(root, await lancedb.connect(root));
  return conns.get(root);
}

// fsync every file, then every directory (deepest first), under `dir`.
function fsyncTree(dir) {
  const dirs = [];
  const walk = (d) => {
    dirs.push(d);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const fd = fs.openSync(p, "r");
        fs.fsyncSync(fd);
        fs.closeSync(fd);
      }
    }
  };
  walk(dir);
  for (const d of dirs.reverse()) {
    const fd = fs.openSync(d, "r");
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  }
  // The root's entry for the new table directory.
  const fd = fs.openSync(path.dirname(dir), "r");
  fs.fsyncSync(fd);
  fs.closeSync(fd);
}

// "1.578526ms", "951.364µs", "2.1s", "12ns" -> seconds.
function durationSeconds(text) {
  const m = /^([0-9.]+)\s*(ns|µs|us|ms|s)$/.exec(text);
  if (!m) return null;
  const scale = { ns: 1e-9, "µs": 1e-6, us: 1e-6, ms: 1e-3, s: 1 }[m[2]];
  return Number(m[1]) * scale;
}

// "200.0 K" / "1.00 M" / "123" -> number.
function countValue(text) {
  const m = /^([0-9.]+)\s*([KMB]?)$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * ({ "": 1, K: 1e3, M: 1e6, B: 1e9 }[m[2]]);
}

async function handle(cmd) {
  switch (cmd.op) {
    case "load": {
      const t0 = now();
      table = arrow.tableFromIPC(fs.readFileSync(cmd.data));
      return { rows: table.numRows, batches: table.batches.length, load_s: secs(t0, now()) };
    }
    case "write": {
      const db = await connect(cmd.root);
      const t0 = now();
      const writer = arrow.RecordBatchFileWriter.writeAll(table);
      const buf = Buffer.from(await writer.toUint8Array());
      const t1 = now();
      await db.inner.createTable(cmd.name, buf, "create", [], {});
      const t2 = now();
      fsyncTree(path.join(cmd.root, `${cmd.name}.lance`));
      const t3 = now();
      return {
        e2e_s: secs(t0, t3),
        rust_s: secs(t1, t3),
        serialize_s: secs(t0, t1),
        fsync_s: secs(t2, t3),
        nofsync_e2e_s: secs(t0, t2),
        nofsync_rust_s: secs(t1, t2),
      };
    }
    case "scan": {
      const db = await connect(cmd.root);
      const tbl = await db.openTable(cmd.name);
      const q = () => (cmd.columns ? tbl.query().select(cmd.columns) : tbl.query());
      if (cmd.how === "arrow") {
        const t0 = now();
        const out = await q().toArrow();
        const t1 = now();
        return { seconds: secs(t0, t1), rows: out.numRows, columns: out.schema.fields.length };
      }
      const t0 = now();
      const plan = await q().analyzePlan();
      const t1 = now();
      const elapsed = /AnalyzeExec[^\n]*?elapsed=([0-9.]+\s*(?:ns|µs|us|ms|s))/.exec(plan);
      const rows = /output_rows=([0-9.]+ ?[KMB]?)[,\]]/.exec(plan);
      return {
        wall_s: secs(t0, t1),
        rust_s: elapsed ? durationSeconds(elapsed[1]) : null,
        rows: rows ? countValue(rows[1]) : null,
        plan: cmd.want_plan ? plan : undefined,
      };
    }
    default:
      throw new Error(`unknown op ${cmd.op}`);
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
for await (const line of rl) {
  if (!line.trim()) continue;
  const cmd = JSON.parse(line);
  if (cmd.op === "quit") break;
  let reply;
  try {
    reply = { ok: true, ...(await handle(cmd)) };
  } catch (e) {
    reply = { ok: false, error: String(e?.stack ?? e) };
  }
  process.stdout.write(`@@ ${JSON.stringify(reply)}\n`);
}
process.exit(0);
