// LanceDB reads quiver's deletes: deletion_interop_test (QuiverDeletesAndReadsBack) deletes rows
// of copies of format fixtures with quiver's DeleteRows (new `.arrow` and `.bin` deletion files,
// merged with LanceDB's own, a fragment removed whole) and records the rows that must remain in
// quiver.json. LanceDB then opens each copy: countRows, the ids it reads (it must decode quiver's
// deletion files to leave the rows out), and a delete of its own on top (which merges quiver's
// deletion vector into a new one) must all agree.
//
//   node check_deletions.mjs <deletion_interop_test binary> <format fixtures dir>
//
// Exits 77 (skipped) when the fixtures were not generated; 1 if any check failed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { connectToDataset } from "./lib.mjs";
import { createReport } from "./checks.mjs";

const [binary, fixtures] = process.argv.slice(2);
if (!binary || !fixtures) {
  console.error("usage: node check_deletions.mjs <deletion_interop_test binary> <fixtures dir>");
  process.exit(2);
}
if (!fs.existsSync(path.join(fixtures, "expected.json"))) {
  console.log(`skipped: no format fixtures in ${fixtures}`);
  process.exit(77);
}
const { check, finish } = createReport();
const work = fs.mkdtempSync(path.join(os.tmpdir(), "qv-deletions-"));
try {
  try {
    execFileSync(binary, ["--gtest_filter=DeletionInterop.QuiverDeletesAndReadsBack"], {
      env: { ...process.env, QUIVER_FORMAT_FIXTURES: fixtures, QUIVER_DELETION_WRITE_DIR: work },
      encoding: "utf8",
      stdio: "pipe",
    });
    check("quiver deletes rows of the fixture copies", true);
  } catch (e) {
    check("quiver deletes rows of the fixture copies", false, `${e.stdout}\n${e.stderr}`);
    finish();
  }
  const tables = JSON.parse(fs.readFileSync(path.join(work, "quiver.json"), "utf8"));
  for (const [name, t] of Object.entries(tables)) {
    const files = fs.readdirSync(path.join(t.path, "_deletions"));
    check(`${name}: quiver wrote a ${t.deletion_file_ext} deletion file`,
      files.some((f) => f.endsWith(t.deletion_file_ext)), files.join(", "));
    const c = await connectToDataset(t.path);
    try {
      const tbl = await c.db.openTable(c.name);
      check(`${name}: LanceDB opens quiver's version ${t.version}`, Number(await tbl.version()) === t.version,
        `LanceDB is at version ${await tbl.version()}`);
      const count = await tbl.countRows();
      check(`${name}: LanceDB countRows = ${t.rows}`, count === t.rows, `got ${count}`);
      const got = await tbl.query().select(["id"]).toArrow();
      const ids = Array.from(got.getChild("id").toArray(), Number).sort((a, b) => a - b);
      const same = ids.length === t.ids.length && ids.every((v, i) => v === t.ids[i]);
      check(`${name}: LanceDB reads exactly the ids quiver kept`, same,
        `${ids.length} ids, first difference at ${ids.findIndex((v, i) => v !== t.ids[i])}`);
      const fragments = (await tbl.stats()).fragmentStats.numFragments;
      check(`${name}: ${t.fragments} fragments`, fragments === t.fragments, `got ${fragments}`);
      // LanceDB deletes one more row: it reads quiver's deletion vector and writes the union.
      const victim = t.ids[Math.floor(t.ids.length / 2)];
      await tbl.delete(`id = ${victim}`);
      const after = await tbl.countRows();
      const stillThere = await tbl.query().where(`id = ${victim}`).toArray();
      check(`${name}: LanceDB deletes on top of quiver's deletions`,
        after === t.rows - 1 && stillThere.length === 0, `countRows ${after}, victim rows ${stillThere.length}`);
      const left = await tbl.query().select(["id"]).toArrow();
      check(`${name}: LanceDB keeps quiver's deletions after its own delete`,
        left.numRows === t.rows - 1, `got ${left.numRows} rows`);
    } catch (e) {
      check(`${name}: LanceDB reads the table`, false, String(e.stack || e));
    } finally {
      c.cleanup();
    }
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
finish();
