#!/usr/bin/env bash
# Table benchmark: open-latest and list-versions on a dataset with many versions, quiver vs
# LanceDB 0.31 (Rust Lance 8.0) on the same dataset in the same run, plus the object-store
# requests of one quiver open-latest. Needs `make build` and tests/interop's node_modules.
#   bench/table/run.sh [versions=10000] [rounds=200]
set -euo pipefail
cd "$(dirname "$0")/../.."
versions=${1:-10000}
rounds=${2:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node bench/table/lancedb_bench.mjs create "$work" >/dev/null
echo "setup: growing the dataset to $versions versions (metadata-only commits)..." >&2
./build/bench/table_bench grow "$work/bench.lance" "$versions" >/dev/null
ours=$(./build/bench/table_bench measure "$work/bench.lance" "$rounds")
theirs=$(node bench/table/lancedb_bench.mjs measure "$work" "$rounds")
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(df -T "$work" | awk 'NR==2 {print $2}'), $(uname -r)"
python3 - "$ours" "$theirs" "$versions" <<'PY'
import json, sys
ours, theirs, n = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
assert ours["version"] == theirs["version"] == int(n), (ours, theirs)
assert ours["listed"] == theirs["listed"] == int(n), (ours, theirs)
print(f"dataset: {n} versions")
print("| operation | quiver (ms) | LanceDB 0.31 (ms) | LanceDB time / quiver time |")
print("|---|---:|---:|---:|")
for key, label in [("open_latest_ms", "open latest version"), ("list_versions_ms", f"list {n} versions with timestamps")]:
    print(f"| {label} | {ours[key]:.3f} | {theirs[key]:.3f} | {theirs[key] / ours[key]:.2f} |")
r = ours["open_latest_requests"]
print(f"\nobject-store requests per quiver open-latest: {r['list']} LIST page(s) + {r['get']} GET (+ {r['head']} HEAD) = {r['total']}")
PY
