#!/usr/bin/env bash
# Query benchmark: filtered scans (three predicate shapes), exact top-10 kNN (1 and 8 clients),
# and writes (10,000-row inserts, merge-insert of 100,000 rows, update and delete by predicate,
# each side on its own copy of the table), quiver's engine against LanceDB (without an index) on
# the same dataset in the same run, with the kNN memory-bandwidth floor. Needs `make build` and tests/interop's
# node_modules. QV_LANCEDB=0.39 compares with LanceDB 0.39 (Lance 12) instead of 0.31.
#   bench/query/run.sh [rows=1000000] [dim=128] [rounds=5]
set -euo pipefail
cd "$(dirname "$0")/../.."
rows=${1:-1000000}
dim=${2:-128}
rounds=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "setup: LanceDB writes $rows rows of $dim-d float32 vectors..." >&2
node bench/query/lancedb_query_bench.mjs create "$work" "$rows" "$dim" >/dev/null
ours=$(./build/bench/query_bench measure "$work/bench.lance" "$dim" "$rounds")
theirs=$(node bench/query/lancedb_query_bench.mjs measure "$work" "$dim" "$rounds" 2>/dev/null)
# Writes change the table: each side works on its own copy.
mkdir -p "$work/quiver" "$work/lancedb"
cp -r "$work/bench.lance" "$work/quiver/bench.lance"
cp -r "$work/bench.lance" "$work/lancedb/bench.lance"
echo "writes: quiver..." >&2
ours_w=$(./build/bench/query_bench writes "$work/quiver/bench.lance" "$work")
echo "writes: LanceDB..." >&2
theirs_w=$(node bench/query/lancedb_query_bench.mjs writes "$work/lancedb" "$work" 2>/dev/null)
echo "machine: $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(df -T "$work" | awk 'NR==2 {print $2}'), Linux $(uname -r); $(date -u +%Y-%m-%d)"
python3 - "$ours" "$theirs" "$dim" "$ours_w" "$theirs_w" <<'PY'
import json, sys
ours, theirs, dim = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
ow, tw = json.loads(sys.argv[4]), json.loads(sys.argv[5])
for k in ("rows_after_merge", "update_rows", "rows_after_delete"):
    assert ow[k] == tw[k], (k, ow[k], tw[k])
assert ours["rows"] == theirs["rows"], (ours, theirs)
print(f"dataset: {ours['rows']} rows, {dim}-d float32 vectors; LanceDB {theirs['lancedb']}")
print("| operation | quiver | LanceDB | ratio (LanceDB time / quiver time) |")
print("|---|---:|---:|---:|")
for shape, pred in [("range", "x > 0.5"), ("equality", "cat = 'c3'"), ("compound", "id % 100 = 7 AND x < 0.3")]:
    k = f"scan_{shape}"
    assert ours[k + "_rows"] == theirs[k + "_rows"], (shape, ours[k + "_rows"], theirs[k + "_rows"])
    print(f"| filtered scan `{pred}` ({ours[k + '_rows']} ids), ms | {ours[k + '_ms']:.1f} | {theirs[k + '_ms']:.1f} | {theirs[k + '_ms'] / ours[k + '_ms']:.2f} |")
print(f"| exact top-10 kNN, latency ms (median) | {ours['knn_ms']:.1f} | {theirs['knn_ms']:.1f} | {theirs['knn_ms'] / ours['knn_ms']:.2f} |")
for c in ("1", "8"):
    q = f"knn_{c}_qps"
    print(f"| exact top-10 kNN, {c} client{'s' if c != '1' else ''}, QPS | {ours[q]:.2f} | {theirs[q]:.2f} | {ours[q] / theirs[q]:.2f} |")
print(f"| insert, 10,000-row batches ({ow['insert_batches']} commits), rows/s | {ow['insert_rows_per_s']:.0f} | {tw['insert_rows_per_s']:.0f} | {ow['insert_rows_per_s'] / tw['insert_rows_per_s']:.2f} |")
print(f"| merge-insert 100,000 rows on id ({ow['merge_updated']} updated, {ow['merge_inserted']} inserted), ms | {ow['merge_ms']:.1f} | {tw['merge_ms']:.1f} | {tw['merge_ms'] / ow['merge_ms']:.2f} |")
print(f"| update `x = x + 1 WHERE cat = 'c3'` ({ow['update_rows']} rows), ms | {ow['update_ms']:.1f} | {tw['update_ms']:.1f} | {tw['update_ms'] / ow['update_ms']:.2f} |")
print(f"| delete `WHERE id % 100 = 7` ({ow['rows_after_merge'] - ow['rows_after_delete']} rows), ms | {ow['delete_ms']:.1f} | {tw['delete_ms']:.1f} | {tw['delete_ms'] / ow['delete_ms']:.2f} |")
print(f"\nkNN memory-bandwidth floor: {ours['floor_ms']:.1f} ms per query (vector bytes / memcpy {ours['memcpy_gbps']:.1f} GB/s); quiver's latency is {ours['floor_ms'] / ours['knn_ms'] * 100:.0f}% of the floor's speed")
PY
