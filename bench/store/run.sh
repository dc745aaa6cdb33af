#!/usr/bin/env bash
# Runs the object-store benchmark (build it first with `make build`) and prints its table.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(df -T "${TMPDIR:-/tmp}" | awk 'NR==2 {print $2}') at ${TMPDIR:-/tmp}, $(uname -r)"
./build/bench/store_bench "$@"
