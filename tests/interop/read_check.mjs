#!/usr/bin/env node
// Opens one Lance dataset with the real LanceDB and prints, as JSON on stdout, what LanceDB
// reports about it. Used to check that datasets quiver wrote or modified still open in LanceDB.
//
//   node read_check.mjs <dataset_dir_or_file_uri> [--version N | --tag NAME] [--branch NAME]
//                       [--per-version] [--on-disk]
//
// Output: {version, num_rows, schema, tags, versions, branches, indices, current_branch,
//          uses_v2_manifest_paths, stats, id_checksum[, num_rows_by_version][, on_disk]}
// with the same field names and shapes as the dataset entries of make_fixtures' expected.json.
// Exit status: 0 if LanceDB opened and read the dataset, 1 if it failed (the error is printed
// as {"error": ...} on stdout and as text on stderr), 2 on bad usage.
//
// The dataset is opened read-only: the directory is symlinked as t.lance into a private temp
// root (LanceDB opens tables by name under a root, and connect() writes <root>/__manifest), so
// nothing is written next to or inside the dataset. The dataset directory need not end in .lance.

import { connectToDataset, describeTable, describeOnDisk, resolveDatasetPath, bigintReplacer } from "./lib.mjs";

function usage(msg) {
  if (msg) console.error(msg);
  console.error(
    "usage: node read_check.mjs <dataset_dir_or_file_uri> [--version N | --tag NAME] [--branch NAME] [--per-version] [--on-disk]",
  );
  process.exit(2);
}

function parseArgs(argv) {
  const a = { uri: null, version: null, tag: null, branch: null, perVersion: false, onDisk: false };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) usage(`${x} needs a value`);
      return argv[++i];
    };
    if (x === "--version") {
      const v = val();
      if (!/^\d+$/.test(v)) usage(`bad --version ${v}`);
      a.version = Number(v);
    } else if (x === "--tag") a.tag = val();
    else if (x === "--branch") a.branch = val();
    else if (x === "--per-version") a.perVersion = true;
    else if (x === "--on-disk") a.onDisk = true;
    else if (x === "-h" || x === "--help") usage();
    else if (x.startsWith("--")) usage(`unknown option ${x}`);
    else if (a.uri === null) a.uri = x;
    else usage(`unexpected argument ${x}`);
  }
  if (!a.uri) usage();
  if (a.version !== null && a.tag !== null) usage("--version and --tag are exclusive");
  return a;
}

const args = parseArgs(process.argv.slice(2));
let conn = null;
let rc = 0;
try {
  conn = await connectToDataset(args.uri);
  let tbl = await conn.db.openTable(conn.name);
  if (args.branch !== null && args.branch !== "main") {
    tbl = await (await tbl.branches()).checkout(args.branch, args.version ?? undefined);
  } else if (args.version !== null) {
    await tbl.checkout(args.version);
  }
  if (args.tag !== null) await tbl.checkout(args.tag);
  const out = await describeTable(tbl, { perVersion: args.perVersion });
  if (args.onDisk) {
    out.on_disk = describeOnDisk(resolveDatasetPath(args.uri));
  }
  process.stdout.write(JSON.stringify(out, bigintReplacer, 2) + "\n");
} catch (err) {
  rc = 1;
  console.error(`read_check: ${err.stack ?? err}`);
  process.stdout.write(JSON.stringify({ error: String(err.message ?? err) }) + "\n");
} finally {
  if (conn) conn.cleanup();
}
// Not process.exit(): that would cut stdout short when it is a pipe (async writes > 64 KiB).
process.exitCode = rc;
