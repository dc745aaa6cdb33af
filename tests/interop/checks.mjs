// Shared plumbing of the check_*.mjs interop scripts: argument parsing, the one-line-per-check
// report with its closing "N passed, N failed", running the quiver binary, and scratch copies
// of fixtures.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Parses `<quiver binary> <fixtures dir> [extra...]`; exits 2 with `usage` when they are missing.
export function parseArgs(usage) {
  const [quiver, dir, ...rest] = process.argv.slice(2);
  if (!quiver || !dir) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return { quiver, dir, rest };
}

export function createReport() {
  let passed = 0;
  let failed = 0;
  return {
    check(label, ok, detail) {
      if (ok) passed++;
      else failed++;
      console.log(`${ok ? "ok  " : "FAIL"}  ${label}${!ok && detail ? ": " + detail : ""}`);
    },
    // Prints the closing line and exits 0 only if every check passed.
    finish() {
      console.log(`${passed} passed, ${failed} failed`);
      process.exit(failed === 0 ? 0 : 1);
    },
  };
}

// Runs quiver synchronously: {ok, out} with stdout on success and stderr on failure.
export function quiverRunner(quiver) {
  return (...args) => {
    try {
      return { ok: true, out: execFileSync(quiver, args, { encoding: "utf8", stdio: "pipe" }) };
    } catch (e) {
      return { ok: false, out: String(e.stderr) };
    }
  };
}

// A scratch directory (removed by cleanup()) and copies of fixtures inside it.
export function scratch(prefix) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    work,
    copy(dir, name, { as = name, preserveTimestamps = false } = {}) {
      const to = path.join(work, `${as}.lance`);
      fs.cpSync(path.join(dir, `${name}.lance`), to, { recursive: true, preserveTimestamps });
      return to;
    },
    cleanup() {
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}
