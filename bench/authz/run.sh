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
# Progress (each phase's raw figures as JSON) goes to stderr, the table to stdout.
source bench/lib/node_bench.sh
run_node_bench bench/authz/authz_bench.mjs "peer: quiver itself with authorization off (LanceDB's dir namespace has no authorization)" "$@"
