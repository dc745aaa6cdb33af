// SQL filters, quiver against LanceDB: LanceDB writes a table of every column type the
// evaluator handles (with NULLs, NaN, a nested struct with null rows, a dictionary column), then
// each predicate runs as LanceDB's query().where(p) and as `quiver table query --filter p`, and
// the ids must be equal. The predicates: a hand-written list covering every construct, then
// seeded random ones (comparisons, IN, BETWEEN, LIKE, IS, AND/OR/NOT, arithmetic). A predicate
// LanceDB refuses must be refused by quiver too (InvalidInput), never answered.
// With --batch-cases N, N more seeded random predicates (the shapes above and the string and
// number functions) run against a copy of the table that `quiver serve` holds (CreateTable from
// the same rows), each as one QueryTable over a kept-alive connection: thousands per run at a
// millisecond each, where the CLI costs a process per predicate. --projection-cases N: N random
// value expressions (numbers, strings, booleans: arithmetic, functions, CASE, casts) as output
// columns, values and types compared; --update-cases N: N random UPDATE ... SET col = expr
// [WHERE p] on a table each side, the column compared after each.
//
//   node check_filters.mjs <quiver binary> <scratch dir> [--cases N] [--seed S] [--batch-cases N]
//                          [--projection-cases N] [--update-cases N]
//
// Prints one line per failing predicate and a closing "N passed, N failed"; exits 1 on failure.
import fs from "node:fs";
import path from "node:path";

import { lancedb, arrow as A, mulberry32, VERSIONS } from "./lib.mjs";
import { quiverRunner, startQuiverServe, stopQuiverServe } from "./checks.mjs";

const argv = process.argv.slice(2);
if (argv.length < 2) {
  console.error("usage: node check_filters.mjs <quiver binary> <scratch dir> [--cases N] [--seed S]");
  process.exit(2);
}
const [QUIVER, SCRATCH] = argv;
const opt = (name, dflt) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const CASES = opt("--cases", 400);
const BATCH_CASES = opt("--batch-cases", 0);
const PROJECTION_CASES = opt("--projection-cases", 0);
const UPDATE_CASES = opt("--update-cases", 0);
const SEED = opt("--seed", 20261202);
const quiver = quiverRunner(QUIVER);

const N = 200;
const LANCE8 = VERSIONS.lancedb.startsWith("0.31");
const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
const stType = new A.Struct([f("a", new A.Int64()), f("t", new A.Utf8())]);
const schema = new A.Schema([
  f("id", new A.Int64(), false), f("i", new A.Int32()), f("u", new A.Uint16()), f("x", new A.Float64()),
  f("y", new A.Float32()), f("s", new A.Utf8()), f("b", new A.Bool()), f("d", new A.DateDay()),
  f("ts", new A.TimestampMicrosecond()), f("st", stType),
  f("cat", new A.Dictionary(new A.Utf8(), new A.Int32())),
]);
const WORDS = ["apple", "Apple", "banana", "cherry", "50%_off", "a_b", "", "x'y", "naïve", "APPLE pie"];
const rnd0 = mulberry32(SEED);
const rows = Array.from({ length: N }, (_, k) => ({
  id: BigInt(k),
  i: k % 11 === 3 ? null : (k * 37) % 101 - 50,
  u: k % 13 === 5 ? null : (k * 7) % 300,
  // -0.0 only for Lance 12, which (like quiver) compares it equal to 0.0; Lance 8 put it below.
  x: k % 17 === 2 ? null : k % 19 === 4 ? NaN : k === 187 && !LANCE8 ? -0 : Math.round((rnd0() * 200 - 100) * 4) / 4 || 0,
  y: k % 9 === 1 ? null : (k % 23) / 2,
  s: k % 7 === 6 ? null : WORDS[k % WORDS.length] + (k % 3 === 0 ? "" : String(k % 5)),
  b: k % 5 === 4 ? null : k % 2 === 0,
  d: k % 10 === 7 ? null : new Date(Date.UTC(2024, 0, 1 + (k % 60))),
  ts: k % 12 === 11 ? null : Date.UTC(2024, 0, 1 + (k % 30), k % 24, 30),  // ms (the builder scales)
  st: k % 8 === 3 ? null : { a: k % 6 === 1 ? null : BigInt(k * 3), t: WORDS[(k * 3) % WORDS.length] },
  cat: k % 14 === 9 ? null : ["red", "green", "blue"][k % 3],
}));

// Hand-written: each construct, NULL semantics, coercions.
const HAND = [
  "id > 150", "id >= 10 AND id < 20", "i = -50", "i <> 0", "i != 0", "NOT i > 0", "i IS NULL",
  "i IS NOT NULL AND i < 0", "x < 0", "x = x", "x > 1e300", "NOT (x > 0)", "y BETWEEN 2 AND 4.5",
  "y NOT BETWEEN 2 AND 4.5", "u IN (0, 7, 14, 300)", "u NOT IN (0, 7)", "u NOT IN (0, NULL)",
  "u IN (7, NULL)", "s = 'apple'", "s LIKE 'a%'", "s LIKE '%1'", "s LIKE '_pple%'",
  "s ILIKE 'APPLE%'", "s NOT LIKE '%e%'", "s LIKE '50\\%%'", "s LIKE '50!%!_off%' ESCAPE '!'",
  "s LIKE '%''%'", "s = ''", "id / 0.0 > 100", "id / 0.0 < -100", "s IS NULL OR b", "b", "NOT b", "b = true", "b IS NOT TRUE",
  "b IS FALSE", "b IS UNKNOWN", "(i > 0) IS NULL", "d = '2024-01-05'", "d > date '2024-02-01'",
  "d BETWEEN '2024-01-10' AND '2024-01-20'", "ts < '2024-01-03 00:00:00'",
  "ts >= timestamp '2024-01-29 12:00:00'", "st.a > 300", "st.a IS NULL", "st.t = 'banana'",
  "cat = 'red'", "cat IN ('green', 'blue')", "cat IS NULL", "id % 7 = 3", "i * 2 - 1 > 20",
  "id / 3 = 5", "-i > 10", "x + y > 10", "abs(i) < 5", "lower(s) = 'apple'",
  "upper(s) LIKE 'APPLE%'", "length(s) = 5", "coalesce(i, 0) = 0", "starts_with(s, 'ban')",
  "s || 'z' = 'applez'", "i = 1.0", "NULL", "TRUE", "id > 5 OR NULL", "id > 5 AND NULL",
  "(i > 0 OR x > 0) AND NOT (s LIKE 'b%' OR b)",
  "CAST(x AS INT) = 2", "CAST(x AS BIGINT) < -3", "CAST(i AS STRING) = '7'", "CAST(x AS STRING) = '2.0'",
  "CAST(y AS STRING) LIKE '%.5'", "x::string LIKE '-%'", "CAST(i AS VARCHAR) = '7'", "CAST('12' AS BIGINT) = id",
  "TRY_CAST(s AS INT) IS NULL", "TRY_CAST(i * 3 AS TINYINT) IS NULL", "CAST(b AS INT) = 1", "CAST(i AS BOOLEAN)",
  "CAST(d AS STRING) = '2024-01-10'", "CAST('2024-01-03' AS DATE) = d", "CAST(ts AS DATE) = date '2024-01-05'",
  "CAST(d AS TIMESTAMP) < ts", "CAST(u AS DOUBLE) / 7 > 20", "CAST(s AS INT) = 1", "CAST(x AS SMALLINT) > 10",
  "CAST(u AS TINYINT UNSIGNED) IS NULL", "CAST(i AS INTEGER) = 1", "CAST(x AS REAL) = 1",
  "CASE WHEN i < 0 THEN 'neg' ELSE 'pos' END = 'neg'",
  // String and number functions (expr/internal/scalar_functions.h), and the ones Lance refuses.
  "concat(s, '!') = 'apple!'", "concat(s, i) LIKE 'banana%-%'", "concat(s, x) LIKE '%.5'", "concat(s, b) LIKE '%true'",
  "concat(i, s) IS NULL", "ltrim(s, 'a') = 'pple'", "rtrim(s, '0123456789') = 'apple'", "btrim(s, 'a') = '_b0'",
  "btrim(concat(' ', s, ' ')) = 'cherry'", "replace(s, 'an', 'AN') = 'bANANa2'", "replace(s, '', '.') LIKE '.a.%'",
  "reverse(s) = 'elppa'", "left(s, 3) = 'app'", "left(s, -1) = 'apple'", "right(s, 2) = 'ff'",
  "lpad(s, 7, '*') = '**apple'", "rpad(s, 3) = 'ban'", "lpad(s, 8, 'xy') LIKE 'xy%'", "initcap(s) = 'Apple Pie'",
  "initcap(s) LIKE 'Naïve%'", "repeat(s, 2) = 'a_ba_b'", "split_part(s, '_', 2) LIKE 'b%'", "split_part(s, '_', -1) LIKE 'off%'",
  "translate(s, 'ap', 'AP') = 'APPle'", "translate(s, 'ae', 'x') LIKE 'xppl%'", "strpos(s, 'e') = 5", "strpos(s, 'ï') = 3",
  "octet_length(s) = 6", "ends_with(s, 'e1')", "contains(s, 'ERR')", "contains(s, 'err')",
  "regexp_like(s, '^[ab].*[0-9]$')", "regexp_like(s, 'APPLE', 'i')", "regexp_like(s, 'a(b|n)a')",
  "regexp_like(s, '\\d{1}')", "regexp_like(s, '^$')",
  "round(x) = 3", "round(x) = -3", "round(x, 1) <> x", "round(y) = 6", "round(i, -1) = -50", "trunc(x) < x",
  "sqrt(u) > 10", "sqrt(x) > 5", "power(i, 2) > 2000", "ln(u) > 5", "log10(u) > 2", "log2(u) > 7", "log(u) > 2",
  "log(2, u) = 4", "exp(y) > 1000", "signum(x) = 0", "signum(i) = -1", "cbrt(u) > 6", "nullif(i, 0) IS NULL",
  "nullif(s, 'apple') IS NULL", "substr(s, 1, 2) = 'ap'", "trim(s) = 'apple'", "floor(x) = 2", "ceil(x) = 3",
  "regexp_like(s, '(')",
];

function randomPredicate(rnd, depth = 0) {
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const num = () => pick(["-50", "0", "3", "7", "25", "99.5", "-0.25", "150"]);
  if (depth < 2 && rnd() < 0.35) {
    const op = pick(["AND", "OR"]);
    const inner = `${randomPredicate(rnd, depth + 1)} ${op} ${randomPredicate(rnd, depth + 1)}`;
    return rnd() < 0.2 ? `NOT (${inner})` : `(${inner})`;
  }
  const numCol = pick(["id", "i", "u", "x", "y", "st.a"]);
  switch (Math.floor(rnd() * 10)) {
    // A cast compared with a literal: DataFusion may unwrap it (CAST(u AS TINYINT) = 7 runs as
    // u = 7, never failing on u = 259), which quiver does not; so casts stay wide here.
    case 9: return `CAST(${pick(["i", "u", "y", "id"])} AS ${pick(["BIGINT", "DOUBLE"])}) ${pick(["=", "<", ">="])} ${pick(["0", "3", "-7", "50"])}`;
    case 0: return `${numCol} ${pick(["=", "<>", "<", "<=", ">", ">="])} ${num()}`;
    case 1: return `${numCol} ${pick(["", "NOT "])}IN (${num()}, ${num()}${rnd() < 0.3 ? ", NULL" : ""})`;
    case 2: return `${numCol} ${pick(["", "NOT "])}BETWEEN ${num()} AND ${num()}`;
    case 3: return `${pick(["s", "st.t", "cat"])} ${pick(["LIKE", "ILIKE", "NOT LIKE"])} '${pick(["a%", "%e%", "_pple%", "%1", "%", "b_n%", "APPLE%"])}'`;
    case 4: return `${pick(["i", "x", "s", "b", "d", "st", "st.a", "cat"])} IS ${pick(["", "NOT "])}NULL`;
    case 5: return `${numCol} ${pick(["+", "-", "*"])} ${pick(["1", "2", "i"])} ${pick(["<", ">"])} ${num()}`;
    case 6: return `b ${pick(["", "= true", "= false", "IS TRUE", "IS NOT FALSE"])}`.trim();
    case 7: return `d ${pick(["<", ">=", "="])} '2024-01-${String(1 + Math.floor(rnd() * 28)).padStart(2, "0")}'`;
    default: return `s ${pick(["=", "<", ">"])} '${pick(WORDS).replace(/'/g, "''")}'`;
  }
}

// A predicate over the string and number functions (expr/internal/scalar_functions.h).
function randomFunctionPredicate(rnd) {
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const word = () => `'${pick(WORDS).replace(/'/g, "''").slice(0, 1 + Math.floor(rnd() * 4))}'`;
  const small = () => String(Math.floor(rnd() * 9) - 2);
  const str = pick(["s", "st.t", "cat", "concat(s, i)", "upper(s)", "reverse(s)"]);
  const num = pick(["i", "u", "x", "y", "id"]);
  switch (Math.floor(rnd() * 12)) {
    case 0: return `${pick(["ltrim", "rtrim", "btrim"])}(${str}, ${word()}) ${pick(["=", "<>", ">"])} ${word()}`;
    case 1: return `${pick(["left", "right"])}(${str}, ${small()}) ${pick(["=", "<"])} ${word()}`;
    case 2: return `${pick(["lpad", "rpad"])}(${str}, ${Math.floor(rnd() * 9)}, ${word()}) LIKE ${word().slice(0, -1)}%'`;
    case 3: return `strpos(${str}, ${word()}) ${pick(["=", ">", "<"])} ${small()}`;
    case 4: return `${pick(["contains", "ends_with", "starts_with"])}(${str}, ${word()})`;
    case 5: return `regexp_like(${str}, '${pick(["^a", "[0-9]$", "e.?e", "^.{3,5}$", "(an)+", "_", "^$"])}'${rnd() < 0.3 ? ", 'i'" : ""})`;
    case 6: return `replace(${str}, ${word()}, ${word()}) = ${word()}`;
    case 7: return `split_part(${str}, ${pick(["'_'", "'a'", "'-'"])}, ${pick(["1", "2", "-1"])}) = ${word()}`;
    // Rounding a negative number towards zero makes -0.0, which Lance 8 orders below 0.0
    // (Lance 12 and quiver: equal); a comparison with 0 would only show that known difference.
    case 8: return `${pick(["round", "trunc"])}(${num}${rnd() < 0.5 ? `, ${pick(["0", "1", "-1"])}` : ""}) ${pick(["=", "<", ">="])} ${pick(LANCE8 ? ["2.5", "-3", "10", "50"] : ["0", "2.5", "-3", "10", "50"])}`;
    case 9: return `${pick(["sqrt", "cbrt", "exp", "ln", "log10", "log2", "signum"])}(${num}) ${pick(["<", ">", "="])} ${pick(["0", "1", "2", "-1"])}`;
    case 10: return `nullif(${pick(["i", "s", "u", "cat"])}, ${pick(["0", "7", "'apple'", "'red'"])}) IS ${pick(["", "NOT "])}NULL`;
    default: return `octet_length(${str}) ${pick(["=", ">"])} ${Math.floor(rnd() * 8)}`;
  }
}


// A random value expression for projections and updates: [SQL, kind], kind "num", "str" or
// "bool". Numbers mix integer and float columns, arithmetic (division and modulo by a column
// that holds zeros: both sides must refuse, or answer, alike), functions, CASE, COALESCE and
// casts; strings the string functions; booleans the predicates above.
function randomValue(rnd, want, depth = 0) {
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const kind = want ?? pick(["num", "num", "str", "bool"]);
  const deeper = depth < 2 && rnd() < 0.5;
  if (kind === "bool") return [randomPredicate(rnd, 1), "bool"];
  if (kind === "str") {
    const leaf = () => pick(["s", "st.t", "cat", "'lit'", "''", "s || '!'"]);
    const sub = () => (deeper ? randomValue(rnd, "str", depth + 1)[0] : leaf());
    switch (Math.floor(rnd() * 12)) {
      case 0: return [`${pick(["lower", "upper", "reverse", "initcap", "btrim", "ltrim"])}(${sub()})`, "str"];
      case 1: return [`concat(${sub()}, ${pick(["i", "'-'", "x", "b", "id"])})`, "str"];
      case 2: return [`replace(${sub()}, '${pick(["a", "an", "p", ""])}', '${pick(["A", "", "xy"])}')`, "str"];
      case 3: return [`${pick(["left", "right"])}(${sub()}, ${Math.floor(rnd() * 7) - 2})`, "str"];
      case 4: return [`${pick(["lpad", "rpad"])}(${sub()}, ${Math.floor(rnd() * 9)}, '${pick(["*", "ab", " "])}')`, "str"];
      case 5: return [`split_part(${sub()}, '${pick(["_", "a", "p"])}', ${pick(["1", "2", "-1"])})`, "str"];
      case 6: return [`coalesce(${sub()}, 'none')`, "str"];
      case 7: return [`CASE WHEN ${randomPredicate(rnd, 1)} THEN ${sub()} ELSE ${leaf()} END`, "str"];
      case 8: return [`CAST(${pick(["i", "u", "id", "b", "d"])} AS STRING)`, "str"];
      case 9: return [`${sub()} || ${leaf()}`, "str"];
      case 10: return [`translate(${sub()}, 'ae', 'AE')`, "str"];
      default: return [leaf(), "str"];
    }
  }
  const leaf = () => pick(["i", "u", "x", "y", "id", "st.a", "3", "-2", "0.5", "NULL"]);
  const sub = () => (deeper ? `(${randomValue(rnd, "num", depth + 1)[0]})` : leaf());
  switch (Math.floor(rnd() * 13)) {
    // Lance 8 orders -0.0 below 0.0 (see the batch predicates): no products there.
    case 0: return [`${sub()} ${pick(LANCE8 ? ["+", "-"] : ["+", "-", "*"])} ${sub()}`, "num"];
    case 1: return [`${sub()} ${pick(["/", "%"])} ${pick(["i", "u", "2", "7", "0.5", "x"])}`, "num"];
    case 2: return [`-${sub()}`, "num"];
    case 3: return [`${pick(["abs", "round", "trunc", "signum", "sqrt", "cbrt"])}(${sub()})`, "num"];
    case 4: return [`coalesce(${sub()}, ${pick(["0", "-1", "2.5"])})`, "num"];
    case 5: return [`CASE WHEN ${randomPredicate(rnd, 1)} THEN ${sub()} ELSE ${leaf()} END`, "num"];
    case 6: return [`CAST(${sub()} AS ${pick(["BIGINT", "DOUBLE", "INT", "FLOAT"])})`, "num"];
    case 7: return [`TRY_CAST(${sub()} AS ${pick(["SMALLINT", "TINYINT", "INT UNSIGNED"])})`, "num"];
    case 8: return [`nullif(${sub()}, ${pick(["0", "3", "7"])})`, "num"];
    case 9: return [`${pick(["length", "octet_length", "strpos"])}(${pick(["s", "cat", "st.t"])}${rnd() < 0.3 ? ", 'a'" : ""})`.replace(/(length|octet_length)\((\w+(?:\.\w+)?), 'a'\)/, "$1($2)"), "num"];
    case 10: return [`power(${sub()}, ${pick(["2", "0.5", "3"])})`, "num"];
    case 11: return [`round(${sub()}, ${pick(["1", "2", "-1"])})`, "num"];
    default: return [leaf(), "num"];
  }
}

// Whether two answers' values are the same: numbers within 1e-9 relative (libm's last digit),
// NaN equal to NaN, integers as integers, nested values field by field.
function sameValue(a, b) {
  if (a === null || a === undefined) return b === null || b === undefined;
  if (b === null || b === undefined) return false;
  if (typeof a === "bigint" || typeof b === "bigint") {
    return typeof a === typeof b ? a === b : Number(a) === Number(b);
  }
  if (typeof a === "number" && typeof b === "number") {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  }
  if (a instanceof Date || b instanceof Date) return Number(a) === Number(b);
  if (typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => sameValue(a[k], b[k]));
  }
  return a === b;
}

// The first difference between two tables' `column` after sorting by id, or null.
function diffColumn(want, got, column) {
  const byId = (t) => t.toArray().map((r) => ({ id: Number(r.id), v: r[column] })).sort((p, q) => p.id - q.id);
  const w = byId(want), g = byId(got);
  if (w.length !== g.length) return `${g.length} rows, LanceDB ${w.length}`;
  for (let k = 0; k < w.length; k++) {
    if (w[k].id !== g[k].id) return `ids differ at ${k}`;
    if (!sameValue(w[k].v, g[k].v)) return `id ${w[k].id}: quiver ${String(g[k].v)}, LanceDB ${String(w[k].v)}`;
  }
  const wt = String(want.schema.fields.find((x) => x.name === column)?.type);
  const gt = String(got.schema.fields.find((x) => x.name === column)?.type);
  return wt === gt ? null : `type ${gt}, LanceDB ${wt}`;
}

// Both refuse, or both answer the same: the problem, or null.
function compareAnswers(lanceErr, status, body, want, column) {
  if (lanceErr) {
    if (status === 200) return `LanceDB refuses (${lanceErr.split("\n")[0].slice(0, 160)}), quiver answers`;
    if (!(status === 400 && JSON.parse(body.toString()).code === 13)) return `LanceDB refuses, quiver answers ${status}: ${body.toString().slice(0, 200)}`;
    return null;
  }
  if (status !== 200) return `quiver fails ${status}: ${body.toString().slice(0, 300)}`;
  return diffColumn(want, A.tableFromIPC(body), column);
}

// --batch-cases: each predicate as LanceDB's query().where() and as quiver's QueryTable.
async function batchCases(tbl, rnd) {
  const root = path.join(SCRATCH, "serve-root");
  fs.mkdirSync(root, { recursive: true });
  const server = startQuiverServe(QUIVER, ["serve", "--root", root, "--listen", "127.0.0.1:0", "--log-level", "warn"]);
  await server.ready;
  let passed = 0, failed = 0;
  try {
    const ipc = Buffer.from(A.tableToIPC(lancedb.makeArrowTable(rows, { schema }), "stream"));
    const created = await fetch(`${server.url}/v1/table/filters/create`, {
      method: "POST", body: ipc, headers: { "content-type": "application/vnd.apache.arrow.stream" },
    });
    if (created.status !== 200) throw new Error(`CreateTable: ${created.status} ${await created.text()}`);
    // Predicates in order (the seed fixes them), run 16 at a time: each one's latency is mostly
    // waiting, on LanceDB's planner and on the round trip.
    // Lance 8 orders -0.0 below 0.0 (Lance 12 and quiver: equal), and a product of a zero and a
    // negative number is -0.0: with Lance 8, products are left out rather than report that.
    const draw = (k) => (k % 2 === 0 ? randomPredicate(rnd) : randomFunctionPredicate(rnd));
    const preds = Array.from({ length: BATCH_CASES }, (_, k) => {
      let p = draw(k);
      while (LANCE8 && p.includes("*")) p = draw(k);
      return p;
    });
    const one = async (p) => {
      let want, lanceErr = null;
      try {
        want = (await tbl.query().where(p).select(["id"]).toArray()).map((r) => Number(r.id)).sort((a, b) => a - b);
      } catch (e) {
        lanceErr = String(e.message ?? e);
      }
      const r = await fetch(`${server.url}/v1/table/filters/query`, {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ filter: p, columns: ["id"], k: N + 1, vector: [] }),
      });
      const body = Buffer.from(await r.arrayBuffer());
      let problem = null;
      if (lanceErr) {
        if (r.status === 200) problem = `LanceDB refuses (${lanceErr.split("\n")[0].slice(0, 160)}), quiver answers`;
        else if (!(r.status === 400 && JSON.parse(body.toString()).code === 13)) problem = `LanceDB refuses, quiver answers ${r.status}: ${body.toString().slice(0, 200)}`;
      } else if (r.status !== 200) {
        problem = `quiver fails ${r.status}: ${body.toString().slice(0, 300)}`;
      } else {
        const got = A.tableFromIPC(body).toArray().map((x) => Number(x.id)).sort((a, b) => a - b);
        if (JSON.stringify(got) !== JSON.stringify(want)) problem = `ids differ (${got.length} vs ${want.length})`;
      }
      if (problem) {
        failed++;
        if (failed <= 30) console.log(`FAIL  ${p}\n        ${problem}`);
      } else {
        passed++;
      }
    };
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < preds.length) await one(preds[next++]);
    }));

    // Projections: a random value expression as an output column ({alias: SQL}), the values and
    // the column's type compared row by row.
    const exprs = Array.from({ length: PROJECTION_CASES }, () => randomValue(rnd)[0]);
    const project = async (e) => {
      let want, lanceErr = null;
      try {
        want = await tbl.query().select({ id: "id", e }).toArrow();
      } catch (err) {
        lanceErr = String(err.message ?? err);
      }
      const r = await fetch(`${server.url}/v1/table/filters/query`, {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ columns: { id: "id", e }, k: N + 1, vector: [] }),
      });
      const problem = compareAnswers(lanceErr, r.status, Buffer.from(await r.arrayBuffer()), want, "e");
      if (problem) {
        failed++;
        if (failed <= (process.env.QV_SHOW_ALL ? 1e9 : 30)) console.log(`FAIL  SELECT ${e}\n        ${problem}`);
      } else {
        passed++;
      }
    };
    next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < exprs.length) await project(exprs[next++]);
    }));

    // Updates: one table each side, the same random UPDATE ... SET col = expr [WHERE p] applied
    // to both in turn (each a commit), the whole column compared after each. Lance 8 orders -0.0
    // below 0.0, which later WHEREs would show: the float columns are not updated there.
    if (UPDATE_CASES > 0) {
      const upd = await tbl.db.createTable("upd", lancedb.makeArrowTable(rows, { schema }));
      const made = await fetch(`${server.url}/v1/table/upd/create`, {
        method: "POST", body: ipc, headers: { "content-type": "application/vnd.apache.arrow.stream" },
      });
      if (made.status !== 200) throw new Error(`CreateTable upd: ${made.status} ${await made.text()}`);
      const targets = [["i", "num"], ["u", "num"], ["s", "str"], ["b", "bool"], ...(LANCE8 ? [] : [["x", "num"], ["y", "num"]])];
      let updateFailures = 0;
      for (let c = 0; c < UPDATE_CASES && updateFailures < 5; c++) {
        const [col, kind] = targets[Math.floor(rnd() * targets.length)];
        const value = randomValue(rnd, kind)[0];
        const where = rnd() < 0.5 ? randomPredicate(rnd, 1) : undefined;
        let lanceErr = null;
        try {
          await upd.update(where === undefined ? { valuesSql: { [col]: value } } : { where, valuesSql: { [col]: value } });
        } catch (err) {
          lanceErr = String(err.message ?? err);
        }
        const r = await fetch(`${server.url}/v1/table/upd/update`, {
          method: "POST", headers: { "content-type": "application/json" },
          body: JSON.stringify({ updates: [[col, value]], ...(where === undefined ? {} : { predicate: where }) }),
        });
        const body = Buffer.from(await r.arrayBuffer());
        let problem;
        if (lanceErr || r.status !== 200) {
          problem = compareAnswers(lanceErr, r.status, body, null, col);
        } else {
          const want = await upd.query().select(["id", col]).toArrow();
          const q = await fetch(`${server.url}/v1/table/upd/query`, {
            method: "POST", headers: { "content-type": "application/json" },
            body: JSON.stringify({ columns: ["id", col], k: N + 1, vector: [] }),
          });
          problem = compareAnswers(null, q.status, Buffer.from(await q.arrayBuffer()), want, col);
        }
        const text = `UPDATE SET ${col} = ${value}${where === undefined ? "" : ` WHERE ${where}`}`;
        if (problem) {
          failed++;
          updateFailures++;
          console.log(`FAIL  ${text}\n        ${problem}`);
        } else {
          passed++;
        }
      }
      if (updateFailures >= 5) console.log("updates: stopped after 5 failures (the tables have diverged)");
    }
  } finally {
    await stopQuiverServe(server);
  }
  return { passed, failed };
}

async function main() {
  fs.rmSync(SCRATCH, { recursive: true, force: true });
  fs.mkdirSync(SCRATCH, { recursive: true });
  const db = await lancedb.connect(SCRATCH);
  const tbl = await db.createTable("filters", lancedb.makeArrowTable(rows, { schema }));
  const ds = path.join(SCRATCH, "filters.lance");
  const rnd = mulberry32(SEED + 1);
  // Negative zeros: equal to 0.0 in Lance 12 and quiver, below it in Lance 8.
  const preds = [...HAND, ...(LANCE8 ? [] : ["x * 0 = 0", "-(x * 0) < 0", "x = 0", "x >= 0"])];
  for (let k = 0; k < CASES; k++) preds.push(randomPredicate(rnd));
  let passed = 0, failed = 0;
  for (const p of preds) {
    let want, lanceErr = null;
    try {
      want = (await tbl.query().where(p).select(["id"]).toArray()).map((r) => Number(r.id)).sort((a, b) => a - b);
    } catch (e) {
      lanceErr = String(e.message ?? e);
    }
    const r = quiver("table", "query", ds, "--filter", p, "--columns", "id", "--json");
    let problem = null;
    if (lanceErr) {
      if (r.ok) problem = `LanceDB refuses (${lanceErr.split("\n")[0].slice(0, 160)}), quiver answers`;
      else if (!/InvalidInput/.test(r.out)) problem = `LanceDB refuses, quiver fails without InvalidInput: ${r.out.slice(0, 200)}`;
    } else if (!r.ok) {
      problem = `quiver fails: ${r.out.trim().slice(0, 300)}`;
    } else {
      const got = r.out.trim().split("\n").filter(Boolean).map((l) => Number(JSON.parse(l).id)).sort((a, b) => a - b);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        const only = (a, b) => a.filter((x) => !b.includes(x)).slice(0, 8);
        problem = `ids differ: quiver-only ${JSON.stringify(only(got, want))}, LanceDB-only ${JSON.stringify(only(want, got))} (${got.length} vs ${want.length})`;
      }
    }
    if (problem) {
      failed++;
      console.log(`FAIL  ${p}\n        ${problem}`);
    } else {
      passed++;
    }
  }
  console.log(`${passed} passed, ${failed} failed (${preds.length} predicates, seed ${SEED}, LanceDB ${VERSIONS.lancedb})`);
  if (BATCH_CASES + PROJECTION_CASES + UPDATE_CASES > 0) {
    tbl.db = db;
    const batch = await batchCases(tbl, mulberry32(SEED + 2));
    console.log(`${batch.passed} passed, ${batch.failed} failed (${BATCH_CASES} predicates, ${PROJECTION_CASES} projections, ${UPDATE_CASES} updates through quiver serve)`);
    failed += batch.failed;
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
