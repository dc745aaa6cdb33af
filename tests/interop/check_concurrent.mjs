// LanceDB and quiver committing to one table at the same time, from separate processes: LanceDB
// appends rows while quiver commits schema-metadata updates (the two are compatible in Lance's
// conflict rules, so both sides must rebase over each other). Afterwards no commit is lost and
// every version opens in LanceDB.
//
//   node check_concurrent.mjs <quiver binary> <fixtures dir> [rounds]
//
// Prints one line per check and a closing "N passed, N failed"; exits 1 if any check failed.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

import { connectToDataset } from "./lib.mjs";
import { parseArgs, createReport, scratch } from "./checks.mjs";

const run = promisify(execFile);
const { quiver, dir, rest } = parseArgs("node check_concurrent.mjs <quiver binary> <fixtures dir> [rounds]");
const roundsArg = rest[0];
const rounds = Number(roundsArg ?? 30);
const { check, finish } = createReport();

const space = scratch("qv-concurrent-");
const ds = space.copy(dir, "basic");

try {
  const c = await connectToDataset(ds);
  const tbl = await c.db.openTable(c.name);
  const startVersion = Number(await tbl.version());
  const startRows = Number(await tbl.countRows());

  const lanceErrors = [];
  const lanceAppends = (async () => {
    for (let i = 0; i < rounds; i++) {
      const rows = Array.from({ length: 10 }, (_, k) => ({
        id: BigInt(100000 + i * 10 + k),
        name: `c-${i}-${k}`,
        vector: Array.from({ length: 8 }, (_, j) => j + k),
      }));
      try {
        await tbl.add(rows);
      } catch (e) {
        lanceErrors.push(String(e.message ?? e));
      }
    }
  })();
  const quiverErrors = [];
  const quiverCommits = (async () => {
    for (let i = 0; i < rounds; i++) {
      try {
        await run(quiver, ["table", "metadata", ds, "--set", `k${i}=v${i}`]);
      } catch (e) {
        quiverErrors.push(String(e.stderr ?? e.message));
      }
    }
  })();
  await Promise.all([lanceAppends, quiverCommits]);
  check(`LanceDB made ${rounds} appends`, lanceErrors.length === 0, lanceErrors.slice(0, 3).join(" | "));
  check(`quiver made ${rounds} commits`, quiverErrors.length === 0, quiverErrors.slice(0, 3).join(" | "));

  await tbl.checkoutLatest();
  const latest = Number(await tbl.version());
  check("no commit was lost (versions)", latest === startVersion + 2 * rounds,
        `latest ${latest}, expected ${startVersion + 2 * rounds}`);
  check("no append was lost (rows)", Number(await tbl.countRows()) === startRows + 10 * rounds,
        String(await tbl.countRows()));
  const metadata = (await tbl.schema()).metadata;
  const keys = [...(metadata?.keys() ?? [])].filter((k) => /^k\d+$/.test(k));
  check("no metadata update was lost", keys.length === rounds, `${keys.length} keys`);

  let unopened = [];
  for (let v = 1; v <= latest; v++) {
    try {
      await tbl.checkout(v);
      await tbl.countRows();
    } catch (e) {
      unopened.push(`${v}: ${e.message}`);
    }
  }
  check("every version opens in LanceDB", unopened.length === 0, unopened.slice(0, 3).join(" | "));
  c.cleanup();

  const { stdout } = await run(quiver, ["table", "versions", ds, "--json"]);
  check("quiver lists every version", JSON.parse(stdout).length === latest, "");
} catch (e) {
  check("interop run", false, e.stack);
} finally {
  if (!process.env.QUIVER_KEEP) space.cleanup();
  else console.log(`kept ${space.work}`);
}
finish();
