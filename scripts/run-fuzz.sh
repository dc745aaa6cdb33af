#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time from its committed seed corpus. New inputs go to
# a scratch corpus (the committed seeds are never modified); a crash leaves its input in
# build-asan/fuzz-artifacts/ and fails the run.
#   scripts/run-fuzz.sh <fuzzer binary> <seed corpus dir> <seconds>
#   scripts/run-fuzz.sh --pair <fuzzer A> <seeds A> <fuzzer B> <seeds B> <seconds>
#       the two at once (one per core, each for the full time); fails if either fails
set -euo pipefail
if [ "${1:-}" = "--pair" ]; then
  self=$0
  "$self" "$2" "$3" "$6" & a=$!
  "$self" "$4" "$5" "$6" & b=$!
  status=0
  wait "$a" || status=1
  wait "$b" || status=1
  exit "$status"
fi
fuzzer=$1 seeds=$2 seconds=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p build-asan/fuzz-artifacts
name=$(basename "$fuzzer")
# The report is printed in one piece at the end, so that two fuzzers running at once do not
# interleave their lines.
if out=$("$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix=build-asan/fuzz-artifacts/ "$scratch" "$seeds" 2>&1); then
  printf 'fuzz: %s for %ss\n%s\nfuzz: %s found no crash\n' "$name" "$seconds" \
    "$(tail -n 15 <<<"$out")" "$name"
else
  printf 'fuzz: %s for %ss FAILED\n%s\n' "$name" "$seconds" "$(tail -n 60 <<<"$out")"
  exit 1
fi
