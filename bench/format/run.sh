#!/usr/bin/env bash
# Format benchmark: quiver's Lance 2.1 writer/reader vs LanceDB 0.31 (Rust Lance 8.0) on the
# same 1M-row dataset in the same run (write, file size, full and projected scans), with the
# memcpy and cold-read floors. Needs a Release build of format_bench and tests/interop's
# node_modules (scripts/install-interop.sh). Takes ~3–5 minutes at 1M rows on 2 cores and needs
# ~3 GB free under the work directory (/tmp by default).
#   bench/format/run.sh [--build DIR=build] [--rows N=1000000] [--rounds R=7] [--work DIR]
#                       [--json FILE] [--keep] [--lancedb 0.39]
# --lancedb 0.39: file format 2.2 on both sides, quiver's 2.2 writer against LanceDB 0.39 (Lance
# 12, whose default is 2.2) instead of 2.1 against LanceDB 0.31 (Lance 8).
# FORMAT_BENCH_ROWS / FORMAT_BENCH_ROUNDS set the defaults of --rows / --rounds.
# Progress (and LanceDB's query plans) go to stderr, the table to stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build
args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --lancedb) export QV_LANCEDB=$2; args+=(--storage-version 2.2); shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
work_fs=${TMPDIR:-/tmp}
for ((i = 0; i < ${#args[@]}; i++)); do
  [[ ${args[$i]} == --work ]] && work_fs=$(dirname "${args[$((i + 1))]}")
done
echo "machine: $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(df -T "$work_fs" | awk 'NR==2 {print $2}') at $work_fs, Linux $(uname -r), node $(node --version), LanceDB $(node -p "require('./tests/interop/${QV_LANCEDB:+lancedb-$QV_LANCEDB/}node_modules/@lancedb/lancedb/package.json').version"); $(date -u +%Y-%m-%d)"
"./$build/bench/format_bench" --peer bench/format/lancedb_format_bench.mjs "${args[@]}"
