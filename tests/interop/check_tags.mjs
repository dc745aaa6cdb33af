// Tags written by quiver are read by LanceDB, and tags written by LanceDB are managed by quiver.
// Works on a copy of the `basic` fixture (no branches there, so the copy is self-contained).
//
//   node check_tags.mjs <quiver binary> <fixtures dir>
//
// Prints one line per check and a closing "N passed, N failed"; exits 1 if any check failed.

import { connectToDataset } from "./lib.mjs";
import { parseArgs, createReport, quiverRunner, scratch } from "./checks.mjs";

const { quiver, dir } = parseArgs("node check_tags.mjs <quiver binary> <fixtures dir>");
const { check, finish } = createReport();
const quiverRun = quiverRunner(quiver);

const space = scratch("qv-tags-");
const ds = space.copy(dir, "basic");

async function lanceTags() {
  const c = await connectToDataset(ds);
  try {
    const tbl = await c.db.openTable(c.name);
    const tags = await tbl.tags();
    const list = await tags.list();
    const out = {};
    for (const [name, t] of Object.entries(list)) out[name] = Number(t.version);
    return out;
  } finally {
    c.cleanup();
  }
}

async function lanceCheckoutTag(tag) {
  const c = await connectToDataset(ds);
  try {
    const tbl = await c.db.openTable(c.name);
    await tbl.checkout(tag);
    return { version: Number(await tbl.version()), rows: Number(await tbl.countRows()) };
  } finally {
    c.cleanup();
  }
}

try {
  // quiver creates, LanceDB reads.
  check("quiver creates tag v1", quiverRun("table", "tag", "create", ds, "from-quiver", "--version",
                                            "1").ok);
  check("LanceDB lists it", JSON.stringify(await lanceTags()) === JSON.stringify({ "from-quiver": 1 }),
        JSON.stringify(await lanceTags()));
  const at = await lanceCheckoutTag("from-quiver");
  check("LanceDB checks it out", at.version === 1 && at.rows === 200, JSON.stringify(at));
  check("a second create is refused",
        quiverRun("table", "tag", "create", ds, "from-quiver").out.includes("TableTagAlreadyExists"));
  // quiver moves it, LanceDB follows.
  check("quiver moves the tag to v3", quiverRun("table", "tag", "update", ds, "from-quiver",
                                                 "--version", "3").ok);
  const moved = await lanceCheckoutTag("from-quiver");
  check("LanceDB sees the move", moved.version === 3 && moved.rows === 400, JSON.stringify(moved));
  // LanceDB creates, quiver lists and deletes.
  {
    const c = await connectToDataset(ds);
    const tbl = await c.db.openTable(c.name);
    await (await tbl.tags()).create("from-lancedb", 2);
    c.cleanup();
  }
  const listed = JSON.parse(quiverRun("table", "tags", ds, "--json").out);
  check("quiver lists LanceDB's tag", listed["from-lancedb"]?.version === 2, JSON.stringify(listed));
  check("quiver deletes it", quiverRun("table", "tag", "delete", ds, "from-lancedb").ok);
  check("LanceDB no longer sees it",
        JSON.stringify(await lanceTags()) === JSON.stringify({ "from-quiver": 3 }),
        JSON.stringify(await lanceTags()));
  check("deleting again is TableTagNotFound",
        quiverRun("table", "tag", "delete", ds, "from-lancedb").out.includes("TableTagNotFound"));
  check("a missing version is TableVersionNotFound",
        quiverRun("table", "tag", "create", ds, "nope", "--version", "99").out
          .includes("TableVersionNotFound"));
} catch (e) {
  check("interop run", false, e.stack);
} finally {
  space.cleanup();
}
finish();
