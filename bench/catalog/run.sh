#!/usr/bin/env bash
# Catalog benchmark: create-namespace, declare-table, describe-table and list-tables, quiver's
# REST server over loopback HTTP vs LanceDB 0.31's embedded directory namespace, at 100 and
# 10,000 tables, 1 and 8 clients, plus quiver's object-store requests per operation.
# Needs a built quiver and tests/interop's node_modules. Takes ~4-5 minutes (2 cores).
#   bench/catalog/run.sh [quiver binary=build/quiver] [--sizes 100,10000] [--peer-fill-cap-s 60]
set -euo pipefail
cd "$(dirname "$0")/../.."
# Progress (each phase's raw figures as JSON) goes to stderr, the table to stdout.
source bench/lib/node_bench.sh
run_node_bench bench/catalog/catalog_bench.mjs "" "$@"
