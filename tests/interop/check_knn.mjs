// Exact vector search, quiver against LanceDB: LanceDB writes a table with float32, float16,
// float64 and uint8 vector columns (null vectors, zero vectors, many ties), then each search runs
// as LanceDB's vectorSearch() and as `quiver table query --nearest`, and the answers must agree:
// the same ids in the same order, the same `_distance` (within float rounding), the same
// `query_index` for several query vectors; a search LanceDB refuses must be refused by quiver too
// (InvalidInput). Searches cover every distance type a column supports, prefilter and postfilter,
// k and offset, distance ranges and seeded random query vectors.
//
//   node check_knn.mjs <quiver binary> <scratch dir> [--cases N] [--seed S]
//
// Prints one line per failing search and a closing "N passed, N failed"; exits 1 on failure.
import fs from "node:fs";
import path from "node:path";

import { lancedb, arrow as A, mulberry32, VERSIONS } from "./lib.mjs";
import { quiverRunner } from "./checks.mjs";

const argv = process.argv.slice(2);
if (argv.length < 2) {
  console.error("usage: node check_knn.mjs <quiver binary> <scratch dir> [--cases N] [--seed S]");
  process.exit(2);
}
const [QUIVER, SCRATCH] = argv;
const opt = (name, dflt) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const CASES = opt("--cases", 150);
const SEED = opt("--seed", 20261203);
const quiver = quiverRunner(QUIVER);

const N = 500;
const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
const fsl = (dim, type) => new A.FixedSizeList(dim, f("item", type));
const COLUMNS = {
  v32: { dim: 8, type: new A.Float32(), distances: ["l2", "cosine", "dot"] },
  v16: { dim: 4, type: new A.Float16(), distances: ["l2", "cosine", "dot"] },
  v64: { dim: 3, type: new A.Float64(), distances: ["l2", "cosine", "dot"] },
  vu8: { dim: 4, type: new A.Uint8(), distances: ["hamming"] },  // Lance: hamming only
};
const schema = new A.Schema([
  f("id", new A.Int64(), false), f("c", new A.Utf8()), f("n", new A.Int32()),
  ...Object.entries(COLUMNS).map(([name, c]) => f(name, fsl(c.dim, c.type))),
]);
const rnd0 = mulberry32(SEED);
const small = (lo, hi) => lo + Math.floor(rnd0() * (hi - lo + 1));
// Small integers: distances are exact in every type, so ties are real ties and their order
// (scan order) is checked; a few rows hold halves to break the lattice.
const vec = (name, k) => {
  const c = COLUMNS[name];
  if (k % 37 === 5) return null;
  if (k % 53 === 11 && name !== "vu8") return new Array(c.dim).fill(0);  // cosine: dropped
  if (name === "vu8") return Array.from({ length: c.dim }, () => small(0, 255));
  return Array.from({ length: c.dim }, () => small(-3, 3) + (k % 7 === 0 ? 0.5 : 0));
};
const rows = Array.from({ length: N }, (_, k) => ({
  id: BigInt(k),
  c: k % 9 === 4 ? null : ["red", "green", "blue"][k % 3],
  n: k % 11 === 2 ? null : (k * 31) % 100,
  ...Object.fromEntries(Object.keys(COLUMNS).map((name) => [name, vec(name, k)])),
}));

const FILTERS = [null, "c = 'red'", "n < 30", "n >= 50 AND c <> 'blue'", "id % 5 = 0"];

function randomQuery(rnd, name) {
  const c = COLUMNS[name];
  if (name === "vu8") return Array.from({ length: c.dim }, () => Math.floor(rnd() * 256));
  return Array.from({ length: c.dim }, () => Math.floor(rnd() * 7) - 3 + (rnd() < 0.3 ? 0.25 : 0));
}

function randomCase(rnd) {
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const column = pick(Object.keys(COLUMNS));
  const distance = pick(COLUMNS[column].distances);
  const queries = [randomQuery(rnd, column)];
  if (rnd() < 0.25) queries.push(randomQuery(rnd, column));
  const tc = {
    column, distance, queries,
    k: pick([1, 3, 10, 25, 100, 600]),
    offset: rnd() < 0.3 ? pick([1, 4, 20]) : 0,
    filter: pick(FILTERS),
    postfilter: rnd() < 0.4,
  };
  if (rnd() < 0.2) {
    // A range around typical distances of the type.
    const scale = distance === "hamming" ? 16 : distance === "l2" ? 40 : 1;
    const lo = Math.floor(rnd() * scale * 0.5 * 4) / 4;
    tc.range = [lo, lo + Math.max(0.25, Math.floor(rnd() * scale * 4) / 4)];
  }
  return tc;
}

// The refusals both must agree on.
const REFUSED = [
  { column: "v32", distance: "l2", queries: [[1, 2, 3]], k: 5, why: "dimension" },
  { column: "v32", distance: "hamming", queries: [[1, 2, 3, 4, 5, 6, 7, 8]], k: 5, why: "hamming on float" },
  { column: "vu8", distance: "l2", queries: [[1, 2, 3, 4]], k: 5, why: "l2 on uint8" },
  { column: null, distance: "l2", queries: [[1, 2, 3, 4]], k: 5, why: "no column, two of dimension 4" },
  { column: null, distance: "l2", queries: [[1, 2, 3, 4, 5]], k: 5, why: "no column of dimension 5" },
  { column: "c", distance: "l2", queries: [[1, 2]], k: 5, why: "not a vector column" },
];

async function lanceAnswer(tbl, tc) {
  let q = tbl.vectorSearch(tc.queries[0]);
  for (const extra of tc.queries.slice(1)) q = q.addQueryVector(extra);
  if (tc.column) q = q.column(tc.column);
  q = q.distanceType(tc.distance).limit(tc.k).select(["id"]);
  if (tc.offset) q = q.offset(tc.offset);
  if (tc.filter) q = q.where(tc.filter);
  if (tc.postfilter) q = q.postfilter();
  if (tc.range) q = q.distanceRange(tc.range[0], tc.range[1]);
  const out = await q.toArray();
  return out.map((r) => ({ q: r.query_index ?? 0, id: Number(r.id), d: r._distance }));
}

function quiverAnswer(ds, tc) {
  const args = ["table", "query", ds, "--nearest", JSON.stringify(tc.queries.length > 1 ? tc.queries : tc.queries[0]),
    "--distance", tc.distance, "--k", String(tc.k), "--columns", "id", "--json"];
  if (tc.column) args.push("--column", tc.column);
  if (tc.offset) args.push("--offset", String(tc.offset));
  if (tc.filter) args.push("--filter", tc.filter);
  if (tc.postfilter) args.push("--postfilter");
  if (tc.range) args.push("--lower-bound", String(tc.range[0]), "--upper-bound", String(tc.range[1]));
  const r = quiver(...args);
  if (!r.ok) return { error: r.out };
  return {
    rows: r.out.trim().split("\n").filter(Boolean).map((l) => {
      const o = JSON.parse(l);
      return { q: o.query_index ?? 0, id: Number(o.id), d: o._distance };
    }),
  };
}

// Grouped by query vector, each group in answer order.
const byQuery = (rows) => [...rows].sort((a, b) => a.q - b.q);
const close = (a, b) => Math.abs(a - b) <= 1e-4 * (1 + Math.abs(b));

function compare(got, want) {
  got = byQuery(got);
  want = byQuery(want);
  if (got.length !== want.length) return `${got.length} rows, LanceDB ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    const g = got[i], w = want[i];
    if (g.q !== w.q) return `row ${i}: query_index ${g.q}, LanceDB ${w.q}`;
    if (!close(g.d, w.d)) return `row ${i}: _distance ${g.d}, LanceDB ${w.d} (id ${g.id} vs ${w.id})`;
    if (g.id !== w.id) {
      // Equal ids are required unless LanceDB's own distances tie there within rounding (cosine
      // of parallel vectors), where the order is the float summation's.
      const tied = want.some((o, j) => j !== i && o.q === w.q && close(o.d, w.d) && o.d !== w.d);
      if (!tied) return `row ${i}: id ${g.id}, LanceDB ${w.id} (distance ${w.d})`;
    }
  }
  return null;
}

// A postfilter keeps the k nearest, then filters. When LanceDB's own k-th distance ties with
// the next ones within rounding (parallel vectors under cosine: LanceDB's last bits differ by
// CPU, AVX2 against AVX-512), which of the tied rows make the k is the float arithmetic's, and
// the filter then keeps a different number of rows. Such an answer is right when it holds every
// filtered row nearer than the tie, and otherwise only filtered rows of the tie. Returns null
// (accepted) or the original problem.
async function boundaryTie(tbl, tc, got, problem) {
  if (tc.queries.length !== 1 || tc.offset || tc.range || !tc.filter) return problem;
  const wide = await lanceAnswer(tbl, { ...tc, filter: null, postfilter: false, k: tc.k + 20 });
  if (wide.length <= tc.k) return problem;
  const dk = wide[tc.k - 1].d;
  if (!close(wide[tc.k].d, dk)) return problem;  // no tie at the boundary
  const nearer = wide.filter((r) => r.d < dk && !close(r.d, dk)).map((r) => r.id);
  const tie = wide.filter((r) => close(r.d, dk)).map((r) => r.id);
  const ids = [...nearer, ...tie];
  const passing = new Set((await tbl.query().where(`(${tc.filter}) AND id IN (${ids.join(",")})`)
    .select(["id"]).toArray()).map((r) => Number(r.id)));
  const gotIds = new Set(got.map((r) => r.id));
  const nearerOk = nearer.filter((id) => passing.has(id)).every((id) => gotIds.has(id));
  const restOk = got.every((r) => passing.has(r.id) && (nearer.includes(r.id) || tie.includes(r.id)));
  const tieCount = got.filter((r) => tie.includes(r.id)).length;
  const roomOk = tieCount <= tc.k - nearer.length;
  return nearerOk && restOk && roomOk ? null : problem;
}

async function main() {
  fs.rmSync(SCRATCH, { recursive: true, force: true });
  fs.mkdirSync(SCRATCH, { recursive: true });
  const db = await lancedb.connect(SCRATCH);
  // Several fragments: ties across fragment boundaries keep scan order.
  const tbl = await db.createTable("knn", lancedb.makeArrowTable(rows.slice(0, 200), { schema }));
  await tbl.add(lancedb.makeArrowTable(rows.slice(200, 350), { schema }));
  await tbl.add(lancedb.makeArrowTable(rows.slice(350), { schema }));
  const ds = path.join(SCRATCH, "knn.lance");
  const rnd = mulberry32(SEED + 1);
  const cases = [];
  // Every column × distance × filter mode once, then random ones.
  for (const [column, c] of Object.entries(COLUMNS)) {
    for (const distance of c.distances) {
      for (const [filter, postfilter] of [[null, false], ["n < 30", false], ["n < 30", true]]) {
        cases.push({ column, distance, queries: [randomQuery(rnd, column)], k: 12, offset: 0, filter, postfilter });
      }
    }
  }
  // No column named: the only one of the query's dimension (v32, v64).
  cases.push({ column: null, distance: "l2", queries: [randomQuery(rnd, "v32")], k: 7, offset: 0, filter: null, postfilter: false });
  cases.push({ column: null, distance: "dot", queries: [randomQuery(rnd, "v64")], k: 7, offset: 0, filter: null, postfilter: false });
  for (let k = 0; k < CASES; k++) cases.push(randomCase(rnd));
  let passed = 0, failed = 0;
  const report = (tc, problem) => {
    if (!problem) return passed++;
    failed++;
    console.log(`FAIL  ${JSON.stringify(tc)}\n        ${problem}`);
  };
  for (const tc of cases) {
    let want, lanceErr = null;
    try {
      want = await lanceAnswer(tbl, tc);
    } catch (e) {
      lanceErr = String(e.message ?? e);
    }
    const got = quiverAnswer(ds, tc);
    if (lanceErr) {
      report(tc, got.error ? (/InvalidInput/.test(got.error) ? null : `quiver fails without InvalidInput: ${got.error.slice(0, 200)}`)
        : `LanceDB refuses (${lanceErr.split("\n")[0].slice(0, 160)}), quiver answers`);
    } else if (got.error) {
      report(tc, `quiver fails: ${got.error.trim().slice(0, 300)}`);
    } else {
      let problem = compare(got.rows, want);
      if (problem && tc.postfilter) problem = await boundaryTie(tbl, tc, got.rows, problem);
      report(tc, problem);
    }
  }
  for (const tc of REFUSED) {
    let lanceErr = null;
    try {
      await lanceAnswer(tbl, tc);
    } catch (e) {
      lanceErr = String(e.message ?? e);
    }
    const got = quiverAnswer(ds, tc);
    if (!lanceErr) report(tc, `LanceDB answered a search expected to be refused (${tc.why})`);
    else report(tc, got.error && /InvalidInput/.test(got.error) ? null : `quiver does not refuse (${tc.why}): ${JSON.stringify(got).slice(0, 200)}`);
  }
  console.log(`${passed} passed, ${failed} failed (${cases.length + REFUSED.length} searches, seed ${SEED}, LanceDB ${VERSIONS.lancedb})`);
  process.exitCode = failed ? 1 : 0;
}

await main();
