// Branches created by quiver are used by LanceDB (checkout, read, append), branches created by
// LanceDB are deleted by quiver, and the refusals match Lance's rules. Works on a copy of the
// `basic` fixture (branch manifests record absolute paths, so branches are made in the copy).
//
//   node check_branches.mjs <quiver binary> <fixtures dir>
//
// Prints one line per check and a closing "N passed, N failed"; exits 1 if any check failed.
import fs from "node:fs";
import path from "node:path";

import { connectToDataset } from "./lib.mjs";
import { parseArgs, createReport, quiverRunner, scratch } from "./checks.mjs";

const { quiver, dir } = parseArgs("node check_branches.mjs <quiver binary> <fixtures dir>");
const { check, finish } = createReport();
const quiverRun = quiverRunner(quiver);

const space = scratch("qv-branches-");
const ds = space.copy(dir, "basic");

async function withTable(fn) {
  const c = await connectToDataset(ds);
  try {
    return await fn(await c.db.openTable(c.name));
  } finally {
    c.cleanup();
  }
}

try {
  check("quiver forks dev from main v2",
        quiverRun("table", "branch", "create", ds, "dev", "--version", "2").ok);
  check("quiver commits on dev",
        quiverRun("table", "metadata", ds, "--branch", "dev", "--set", "on=dev").ok);
  check("quiver forks feat/x from dev",
        quiverRun("table", "branch", "create", ds, "feat/x", "--from", "dev").ok);
  await withTable(async (tbl) => {
    const branches = await (await tbl.branches()).list();
    check("LanceDB lists both branches",
          JSON.stringify(Object.keys(branches).sort()) === JSON.stringify(["dev", "feat/x"]),
          JSON.stringify(Object.keys(branches)));
    check("LanceDB sees feat/x's parent", branches["feat/x"]?.parentBranch === "dev" &&
          Number(branches["feat/x"]?.parentVersion) === 3, JSON.stringify(branches["feat/x"]));
    const b = await (await tbl.branches()).checkout("feat/x");
    check("LanceDB reads the branch of a branch",
          Number(await b.version()) === 3 && Number(await b.countRows()) === 300 &&
            (await b.schema()).metadata?.get("on") === "dev", "");
    await b.add([{ id: 999999n, name: "on-branch", vector: [1, 2, 3, 4, 5, 6, 7, 8] }]);
    check("LanceDB appends on it", Number(await b.version()) === 4 &&
          Number(await b.countRows()) === 301, String(await b.countRows()));
    const main = await tbl.checkoutLatest().then(() => tbl);
    check("main is untouched", Number(await main.version()) === 3 &&
          Number(await main.countRows()) === 400, "");
  });
  const inspected = JSON.parse(quiverRun("table", "inspect", ds, "--branch", "feat/x", "--json").out);
  check("quiver reads LanceDB's commit on the branch",
        inspected.version === 4 && inspected.num_rows === 301, JSON.stringify(inspected.version));

  check("deleting dev while feat/x forks from it is refused",
        quiverRun("table", "branch", "delete", ds, "dev").out.includes("InvalidTableState"));
  check("quiver deletes feat/x", quiverRun("table", "branch", "delete", ds, "feat/x").ok);
  const left = fs.existsSync(path.join(ds, "tree", "feat", "x"))
    ? fs.readdirSync(path.join(ds, "tree", "feat", "x"), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile()).map((e) => e.name)
    : [];
  check("its files are gone", left.length === 0, JSON.stringify(left));
  await withTable(async (tbl) => {
    const branches = await (await tbl.branches()).list();
    check("LanceDB no longer lists it", !("feat/x" in branches), JSON.stringify(Object.keys(branches)));
    await (await tbl.branches()).create("from-lancedb");
  });
  check("quiver deletes a branch LanceDB made",
        quiverRun("table", "branch", "delete", ds, "from-lancedb").ok);
  check("an existing name is TableBranchAlreadyExists",
        quiverRun("table", "branch", "create", ds, "dev").out.includes("TableBranchAlreadyExists"));
  check("main is not a branch name",
        quiverRun("table", "branch", "create", ds, "main").out.includes("InvalidInput"));
  await withTable(async (tbl) => {
    const branches = await (await tbl.branches()).list();
    check("LanceDB sees exactly dev", JSON.stringify(Object.keys(branches)) === JSON.stringify(["dev"]),
          JSON.stringify(Object.keys(branches)));
  });
} catch (e) {
  check("interop run", false, e.stack);
} finally {
  space.cleanup();
}
finish();
