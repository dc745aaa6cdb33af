#!/usr/bin/env bash
# Authorization benchmark: describe-table throughput with authorization on vs off over a root
# holding 100,000 grants (1 and 8 clients), and listing a namespace of 10,000 tables as a
# principal who sees 10 of them vs listing a 10-table namespace. The reference is quiver itself
# with authorization off (LanceDB's directory namespace has no authorization).
# Needs a built quiver and node (no npm packages). Takes ~2 minutes (2 cores).
#   bench/authz/run.sh [quiver binary=build/quiver] [--root DIR] [--seconds 10] [--rounds 6]
#                      [--list-reps 2000] [--shape 10,1000,10000,100000]
# --root DIR keeps the filled root (and its keys, in DIR.bench-authz.json) so that a rerun with
# the same --root skips the fill.
set -euo pipefail
cd "$(dirname "$0")/../.."
quiver=${1:-build/quiver}
shift || true
# The server is spawned from node; give it an absolute path.
quiver=$(realpath "$quiver")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "machine: $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p')), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(df -T "$work" | awk 'NR==2 {print $2}'), Linux $(uname -r), node $(node --version); $(date -u +%Y-%m-%d); peer: quiver itself with authorization off (LanceDB's dir namespace has no authorization)"
# Progress (each phase's raw figures as JSON) goes to stderr, the table to stdout.
node bench/authz/authz_bench.mjs "$quiver" "$work" "$@"
