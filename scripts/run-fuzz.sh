#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time from its committed seed corpus. New inputs go to
# a scratch corpus (the committed seeds are never modified); a crash leaves its input in
# build-fuzz/artifacts/ and fails the run.
#   scripts/run-fuzz.sh <fuzzer binary> <seed corpus dir> <seconds>
set -euo pipefail
fuzzer=$1 seeds=$2 seconds=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p build-fuzz/artifacts
echo "fuzz: $(basename "$fuzzer") for ${seconds}s"
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix=build-fuzz/artifacts/ "$scratch" "$seeds" 2>&1 | tail -n 15
echo "fuzz: $(basename "$fuzzer") found no crash"
