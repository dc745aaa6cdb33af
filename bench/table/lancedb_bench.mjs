// Table-level benchmark, LanceDB's side: create the base dataset, or time open-latest and
// list-versions on it with LanceDB 0.31 (Rust Lance 8.0). JSON out.
//   node lancedb_bench.mjs create <dir>            writes <dir>/bench.lance (100 rows, 1 version)
//   node lancedb_bench.mjs measure <dir> [rounds]
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../../tests/interop/package.json"));
const lancedb = require("@lancedb/lancedb");

const [mode, dir, roundsArg] = process.argv.slice(2);
const db = await lancedb.connect(dir);
if (mode === "create") {
  const rows = Array.from({ length: 100 }, (_, i) => ({ id: BigInt(i), name: `n${i}` }));
  await db.createTable("bench", rows, { mode: "overwrite" });
  console.log(JSON.stringify({ created: path.join(dir, "bench.lance") }));
} else if (mode === "measure") {
  const rounds = Number(roundsArg ?? 200);
  let version = 0;
  let t = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) {
    const tbl = await db.openTable("bench");
    version = Number(await tbl.version());
  }
  const openMs = Number(process.hrtime.bigint() - t) / 1e6 / rounds;
  const tbl = await db.openTable("bench");
  const listRounds = Math.max(1, Math.floor(rounds / 10));
  let listed = 0;
  t = process.hrtime.bigint();
  for (let i = 0; i < listRounds; i++) listed = (await tbl.listVersions()).length;
  const listMs = Number(process.hrtime.bigint() - t) / 1e6 / listRounds;
  console.log(JSON.stringify({ version, open_latest_ms: openMs, list_versions_ms: listMs, listed }));
} else {
  console.error("usage: node lancedb_bench.mjs create <dir> | measure <dir> [rounds]");
  process.exit(2);
}
